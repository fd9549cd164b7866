import { apiOkWithMessage } from "@/server/rest/envelope";
import { restProcedure } from "@/server/rest/trpc";
import { panKyc } from "@/server/services/kyc/pan-kyc";
import { callerOf, noteCharge, vaultOf } from "@/server/api/kyc/kyc-caller";
import { panKycInput, panKycMeta, panKycOutput } from "@/server/api/kyc/pan-kyc.schema";

export const panKycProcedure = restProcedure(panKycMeta, {
  input: panKycInput,
  output: panKycOutput,
  resolve: async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const data = noteCharge(
      ctx.audit,
      await panKyc(vaultOf(services), services.providers[auth.mode].pan, callerOf(auth, ctx.requestId, "PAN", input), {
        pan: input.pan,
        name: input.name ?? null,
        dob: input.dob ?? null,
      }),
    );
    return apiOkWithMessage(data.status === "VALID" ? "PAN verified." : `PAN checked: ${data.status}.`, data);
  },
});
