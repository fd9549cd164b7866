import { v1OkNoTimestamp } from "@/server/rest/envelope";
import { withVerificationRecord } from "@/server/rest/verification-record";
import { epfoVerificationRecord, verifyEpfo } from "@/server/services/employment/verify-epfo";
import { restProcedure } from "@/server/rest/trpc";
import { verifyEpfoInput, verifyEpfoMeta, verifyEpfoOutput } from "@/server/api/employment/verify-epfo.schema";

export const verifyEpfoProcedure = restProcedure(verifyEpfoMeta)
  .input(verifyEpfoInput)
  .output(verifyEpfoOutput)
  .mutation(async ({ ctx, input }) => {
    const lookup = input.uan !== undefined ? { uan: input.uan } : { pfNumber: input.pf_number! };
    const provider = ctx.services.providers[ctx.auth.mode].epfo;
    const data = await withVerificationRecord(
      ctx.audit,
      () => verifyEpfo(provider, lookup),
      (outcome) => epfoVerificationRecord(lookup, outcome),
    );
    return v1OkNoTimestamp(data);
  });
