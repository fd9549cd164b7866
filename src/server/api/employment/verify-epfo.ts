import { v1OkNoTimestamp } from "@/server/rest/envelope";
import { withVerificationRecord } from "@/server/rest/verification-record";
import { epfoVerificationRecord, verifyEpfo } from "@/server/services/employment/verify-epfo";
import { restProcedure } from "@/server/rest/trpc";
import { consentFor, vendorConsentOf } from "@/server/services/consent/consent";
import { verifyEpfoInput, verifyEpfoMeta, verifyEpfoOutput } from "@/server/api/employment/verify-epfo.schema";

export const verifyEpfoProcedure = restProcedure(verifyEpfoMeta, {
  input: verifyEpfoInput,
  output: verifyEpfoOutput,
  resolve: async ({ ctx, input }) => {
    const { mode } = ctx.auth;
    // Refused before anything else when live and without consent or purpose: no vendor call, no history row.
    const consent = consentFor(mode, input, ctx.auth.consent);
    const lookup = input.uan !== undefined ? { uan: input.uan } : { pfNumber: input.pf_number! };
    const provider = ctx.services.providers[mode].epfo;
    const data = await withVerificationRecord(
      ctx.audit,
      () => verifyEpfo(provider, lookup, vendorConsentOf(mode, consent)),
      (outcome) => ({ ...epfoVerificationRecord(lookup, outcome, provider.vendor), consent }),
    );
    return v1OkNoTimestamp(data);
  },
});
