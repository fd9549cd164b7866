import { apiOkWithMessage } from "@/server/rest/envelope";
import type { RestAuth } from "@/server/rest/context";
import type { AppServices } from "@/server/services";
import type { KycKind } from "@/lib/kyc";
import { generateAadhaarOtp, verifyAadhaarOtp } from "@/server/services/kyc/aadhaar-otp";
import { bankKyc } from "@/server/services/kyc/bank-kyc";
import type { KycCaller, KycVault } from "@/server/services/kyc/charge";
import { panKyc } from "@/server/services/kyc/pan-kyc";
import { kycProcedure } from "@/server/rest/trpc";
import {
  bankKycInput,
  bankKycMeta,
  bankKycOutput,
  generateOtpInput,
  generateOtpMeta,
  generateOtpOutput,
  panKycInput,
  panKycMeta,
  panKycOutput,
  verifyOtpInput,
  verifyOtpMeta,
  verifyOtpOutput,
} from "@/server/api/kyc/kyc.schema";

function callerOf(auth: RestAuth, requestId: string, kind: KycKind): KycCaller {
  return { merchantId: auth.merchantId, mode: auth.mode, requestId, feePaise: auth.kycFees[kind] };
}

function vaultOf(services: AppServices): KycVault {
  return {
    db: services.db,
    store: services.walletStore,
    encryptionKey: services.config.secrets.encryptionKey,
    retentionDays: services.config.kycResultRetentionDays,
  };
}

export const generateOtpProcedure = kycProcedure
  .meta(generateOtpMeta)
  .input(generateOtpInput)
  .output(generateOtpOutput)
  .mutation(async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const sent = await generateAadhaarOtp(
      services.db,
      services.config.secrets.hashKey,
      services.providers[auth.mode].aadhaar,
      callerOf(auth, ctx.requestId, "AADHAAR_OTP"),
      input.aadhaarNumber,
      services.config.otpLimits,
    );
    return apiOkWithMessage(sent.message, sent.data);
  });

export const verifyOtpProcedure = kycProcedure
  .meta(verifyOtpMeta)
  .input(verifyOtpInput)
  .output(verifyOtpOutput)
  .mutation(async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const data = await verifyAadhaarOtp(
      services.config.secrets.hashKey,
      vaultOf(services),
      services.providers[auth.mode].aadhaar,
      callerOf(auth, ctx.requestId, "AADHAAR_OTP"),
      {
        aadhaarNumber: input.aadhaarNumber,
        otp: input.otp,
        requestId: input.requestId ?? null,
      },
    );
    return apiOkWithMessage("Aadhaar verified.", data);
  });

export const panKycProcedure = kycProcedure
  .meta(panKycMeta)
  .input(panKycInput)
  .output(panKycOutput)
  .mutation(async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const data = await panKyc(vaultOf(services), services.providers[auth.mode].pan, callerOf(auth, ctx.requestId, "PAN"), {
      pan: input.pan,
      name: input.name ?? null,
      dob: input.dob ?? null,
    });
    return apiOkWithMessage(data.status === "VALID" ? "PAN verified." : `PAN checked: ${data.status}.`, data);
  });

export const bankKycProcedure = kycProcedure
  .meta(bankKycMeta)
  .input(bankKycInput)
  .output(bankKycOutput)
  .mutation(async ({ ctx, input }) => {
    const { services, auth } = ctx;
    const data = await bankKyc(vaultOf(services), services.providers[auth.mode].bank, callerOf(auth, ctx.requestId, "BANK"), {
      accountNumber: input.accountNumber,
      ifsc: input.ifsc,
      name: input.name ?? null,
    });
    return apiOkWithMessage(data.accountExists ? "Bank account verified." : "Bank account checked: it does not exist.", data);
  });
