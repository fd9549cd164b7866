import { epfoBatch, panBatch } from "@/server/api/batches/batch";
import { verifyEpfoProcedure } from "@/server/api/employment/verify-epfo";
import { verifyPanProcedure } from "@/server/api/identity/verify-pan";
import { createCheckoutProcedure } from "@/server/api/payments/create-checkout";
import { paymentStatusProcedure } from "@/server/api/payments/payment-status";
import { verifyPaymentProcedure } from "@/server/api/payments/verify-payment";
import { bankKycProcedure, generateOtpProcedure, panKycProcedure, verifyOtpProcedure } from "@/server/api/kyc/kyc";
import { createRefundProcedure, getRefundProcedure, listRefundsProcedure } from "@/server/api/refunds/refunds";
import { simulatePaymentProcedure } from "@/server/api/sandbox/simulate";
import { router } from "@/server/trpc/init";

/** Every public REST operation (`/v1`, `/api`), served by the REST door and described in /api/openapi.json. */
export const restRouter = router({
  identity: router({
    verifyPan: verifyPanProcedure,
    createPanBatch: panBatch.create,
    panBatchStatus: panBatch.status,
    panBatchResults: panBatch.results,
  }),
  employment: router({
    verifyEpfo: verifyEpfoProcedure,
    createEpfoBatch: epfoBatch.create,
    epfoBatchStatus: epfoBatch.status,
    epfoBatchResults: epfoBatch.results,
  }),
  payments: router({
    createCheckout: createCheckoutProcedure,
    verify: verifyPaymentProcedure,
    status: paymentStatusProcedure,
  }),
  refunds: router({
    create: createRefundProcedure,
    list: listRefundsProcedure,
    get: getRefundProcedure,
  }),
  sandbox: router({
    simulatePayment: simulatePaymentProcedure,
  }),
  kyc: router({
    aadhaarGenerateOtp: generateOtpProcedure,
    aadhaarVerifyOtp: verifyOtpProcedure,
    panVerify: panKycProcedure,
    bankVerify: bankKycProcedure,
  }),
});

export type RestRouter = typeof restRouter;
