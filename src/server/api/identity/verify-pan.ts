import { v1Ok } from "@/server/rest/envelope";
import { withVerificationRecord } from "@/server/rest/verification-record";
import { checkPan, panVerificationRecord } from "@/server/services/identity/verify-pan";
import { restProcedure } from "@/server/rest/trpc";
import { consentFor, vendorConsentOf } from "@/server/services/consent/consent";
import { verifyPanInput, verifyPanMeta, verifyPanOutput } from "@/server/api/identity/verify-pan.schema";

export const verifyPanProcedure = restProcedure(verifyPanMeta, {
  input: verifyPanInput,
  output: verifyPanOutput,
  resolve: async ({ ctx, input }) => {
    const { mode } = ctx.auth;
    // Refused before anything else when live and without consent or purpose: no vendor call, no history row.
    const consent = consentFor(mode, input, ctx.auth.consent);
    const name = input.name ?? null;
    const provider = ctx.services.providers[mode].pan;
    const check = await withVerificationRecord(
      ctx.audit,
      () => checkPan(provider, input.pan, name, undefined, vendorConsentOf(mode, consent)),
      (outcome) => ({ ...panVerificationRecord(input.pan, name, outcome), consent }),
    );
    // The answer alone: the source's own score stays on the record.
    return v1Ok(check.answer);
  },
});
