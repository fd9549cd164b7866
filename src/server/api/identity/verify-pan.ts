import { v1Ok } from "@/server/rest/envelope";
import { withVerificationRecord } from "@/server/rest/verification-record";
import { checkPan, panVerificationRecord } from "@/server/services/identity/verify-pan";
import { restProcedure } from "@/server/rest/trpc";
import { verifyPanInput, verifyPanMeta, verifyPanOutput } from "@/server/api/identity/verify-pan.schema";

export const verifyPanProcedure = restProcedure(verifyPanMeta)
  .input(verifyPanInput)
  .output(verifyPanOutput)
  .mutation(async ({ ctx, input }) => {
    const name = input.name ?? null;
    const provider = ctx.services.providers[ctx.auth.mode].pan;
    const check = await withVerificationRecord(
      ctx.audit,
      () => checkPan(provider, input.pan, name),
      (outcome) => panVerificationRecord(input.pan, name, outcome),
    );
    // The answer alone: the source's own score stays on the record.
    return v1Ok(check.answer);
  });
