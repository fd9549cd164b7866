/**
 * Live PAN source: Setu's "Verify PAN" (`POST /api/verify/pan` with `{ pan, consent, reason }`). Setu
 * wants the person's consent (`consent: "Y"`) and a reason of 20 characters or more, so the
 * connector sends the call's consent and purpose, and without them does not call Setu at all
 * (VendorNotApplicable: the family's next vendor is tried). No name is sent: Parakh scores names itself.
 *
 *   answer                                         status    name              seeding
 *   200 verification "success"                     VALID     data.full_name    data.aadhaar_seeding_status
 *   200 verification "failed" ("PAN is invalid")   INVALID   null              NOT_APPLICABLE
 *   404 verification "failed" ("PAN not found.")   INVALID   null              NOT_APPLICABLE
 *
 * A 404 without `verification` (a wrong path, a proxy's page) is no answer about the PAN: it goes
 * to the next vendor, or marks the family misconfigured for Setu's `path-not-found`.
 *
 * Aadhaar seeding `LINKED` (or `Y`) → LINKED; anything else NOT_LINKED for individuals,
 * NOT_APPLICABLE for others. What Setu does not give: a PAN status code (so a deactivated or deleted
 * PAN can only come back INVALID through it), event remarks (deceased, merged…), the date of birth
 * and a date-of-birth check (`dobMatch` null), and a name-match score of its own.
 */
import { panCategory } from "@/lib/pan";
import { unreadableAnswer, type UpstreamClient } from "@/server/providers/upstream/client";
import { objectBody, upper } from "@/server/providers/cashfree/secure-id";
import { VendorNotApplicable } from "@/server/providers/failover";
import type { AadhaarSeedingStatus, PanProvider, PanRecord } from "@/server/providers/pan/types";
import { unexpectedSetuRefusal } from "./client";

function notOnRecord(pan: string): PanRecord {
  return {
    pan,
    status: "INVALID",
    name: null,
    category: panCategory(pan),
    aadhaarSeedingStatus: "NOT_APPLICABLE",
    dob: null,
    remarks: null,
    sourceNameMatchScore: null,
  };
}

/** The PAN record in a Verify PAN answer (exported for the mapping tests). */
export function panRecordFromSetu(pan: string, body: Record<string, unknown>): PanRecord {
  const verification = upper(body.verification);
  if (verification === "FAILED") return notOnRecord(pan);
  if (verification !== "SUCCESS") throw unreadableAnswer("no PAN verification result");
  const data = body.data && typeof body.data === "object" && !Array.isArray(body.data) ? (body.data as Record<string, unknown>) : {};
  const name = upper(data.full_name);
  if (!name) throw unreadableAnswer("a valid PAN without a name");
  const category = panCategory(pan);
  const seeding = upper(data.aadhaar_seeding_status);
  const aadhaarSeedingStatus: AadhaarSeedingStatus =
    seeding === "LINKED" || seeding === "Y" ? "LINKED" : category === "INDIVIDUAL" ? "NOT_LINKED" : "NOT_APPLICABLE";
  return { pan, status: "VALID", name, category, aadhaarSeedingStatus, dob: null, remarks: null, sourceNameMatchScore: null };
}

export function createSetuPanProvider(client: UpstreamClient): PanProvider {
  return {
    async lookup(pan, options = {}) {
      const consent = options.consent;
      if (!consent) throw new VendorNotApplicable("Setu takes no PAN call without the person's consent and its purpose.");
      const body = { pan, consent: "Y", reason: consent.purpose };
      const record = await client.call({ method: "POST", path: "/api/verify/pan", body, deadlineAt: options.deadlineAt }, (answer) => {
        if (answer.status === 200) return panRecordFromSetu(pan, objectBody(answer));
        // Setu's "PAN not found." carries verification "failed"; any other 404 says nothing of the PAN.
        if (answer.status === 404 && upper(objectBody(answer).verification) === "FAILED") return notOnRecord(pan);
        throw unexpectedSetuRefusal(client, answer);
      });
      // Setu checks no date of birth: a PAN KYC with one answers dobMatch null through it.
      return options.dob ? { ...record, dobMatch: null } : record;
    },
  };
}
