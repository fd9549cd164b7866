import { apiOkWithMessage } from "@/server/rest/envelope";
import { restProcedure } from "@/server/rest/trpc";
import { generateAadhaarOtp } from "@/server/services/kyc/aadhaar-otp";
import { callerOf } from "@/server/api/kyc/kyc-caller";
import { generateOtpInput, generateOtpMeta, generateOtpOutput } from "@/server/api/kyc/generate-otp.schema";

export const generateOtpProcedure = restProcedure(generateOtpMeta, {
  input: generateOtpInput,
  output: generateOtpOutput,
  resolve: async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const sent = await generateAadhaarOtp(
      services.db,
      services.config.secrets.hashKey,
      services.providers[auth.mode].aadhaar,
      callerOf(auth, ctx.requestId, "AADHAAR_OTP", input),
      input.aadhaarNumber,
      services.config.otpLimits,
    );
    return apiOkWithMessage(sent.message, sent.data);
  },
});
