import { apiOkWithMessage } from "@/server/rest/envelope";
import { restProcedure } from "@/server/rest/trpc";
import { bankKyc } from "@/server/services/kyc/bank-kyc";
import { callerOf, noteCharge, vaultOf } from "@/server/api/kyc/kyc-caller";
import { bankKycInput, bankKycMeta, bankKycOutput } from "@/server/api/kyc/bank-kyc.schema";

export const bankKycProcedure = restProcedure(bankKycMeta, {
  input: bankKycInput,
  output: bankKycOutput,
  resolve: async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const data = noteCharge(
      ctx.audit,
      await bankKyc(vaultOf(services), services.providers[auth.mode].bank, callerOf(auth, ctx.requestId, "BANK", input), {
        accountNumber: input.accountNumber,
        ifsc: input.ifsc,
        name: input.name ?? null,
      }),
    );
    return apiOkWithMessage(data.accountExists ? "Bank account verified." : "Bank account checked: it does not exist.", data);
  },
});
