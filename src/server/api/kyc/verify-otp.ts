import { apiOkWithMessage } from "@/server/rest/envelope";
import { restProcedure } from "@/server/rest/trpc";
import { verifyAadhaarOtp } from "@/server/services/kyc/aadhaar-otp";
import { callerOf, noteCharge, vaultOf } from "@/server/api/kyc/kyc-caller";
import { verifyOtpInput, verifyOtpMeta, verifyOtpOutput } from "@/server/api/kyc/verify-otp.schema";

export const verifyOtpProcedure = restProcedure(verifyOtpMeta, {
  input: verifyOtpInput,
  output: verifyOtpOutput,
  resolve: async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const data = noteCharge(
      ctx.audit,
      await verifyAadhaarOtp(
        services.config.secrets.hashKey,
        vaultOf(services),
        services.providers[auth.mode].aadhaar,
        callerOf(auth, ctx.requestId, "AADHAAR_OTP", input),
        {
          aadhaarNumber: input.aadhaarNumber,
          otp: input.otp,
          requestId: input.requestId ?? null,
        },
      ),
    );
    return apiOkWithMessage("Aadhaar verified.", data);
  },
});
