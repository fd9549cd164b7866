import { epfoBatchResultsProcedure, panBatchResultsProcedure } from "@/server/api/batches/batch-results";
import { epfoBatchStatusProcedure, panBatchStatusProcedure } from "@/server/api/batches/batch-status";
import { createEpfoBatchProcedure, createPanBatchProcedure } from "@/server/api/batches/create-batch";
import { verifyEpfoProcedure } from "@/server/api/employment/verify-epfo";
import { verifyPanProcedure } from "@/server/api/identity/verify-pan";
import { bankKycProcedure } from "@/server/api/kyc/bank-kyc";
import { generateOtpProcedure } from "@/server/api/kyc/generate-otp";
import { panKycProcedure } from "@/server/api/kyc/pan-kyc";
import { verifyOtpProcedure } from "@/server/api/kyc/verify-otp";
import { createCheckoutProcedure } from "@/server/api/payments/create-checkout";
import { paymentStatusProcedure } from "@/server/api/payments/payment-status";
import { verifyPaymentProcedure } from "@/server/api/payments/verify-payment";
import { createRefundProcedure } from "@/server/api/refunds/create-refund";
import { getRefundProcedure } from "@/server/api/refunds/get-refund";
import { listRefundsProcedure } from "@/server/api/refunds/list-refunds";
import { simulatePaymentProcedure } from "@/server/api/sandbox/simulate";
import { restOperation, type RestOperation } from "@/server/rest/operations";
import { restRouterOf } from "@/server/rest/trpc";

/** Every public REST operation (`/v1`, `/api`): the tRPC procedures the OpenAPI document is generated from. */
export const restRouter = restRouterOf({
  identity: restRouterOf({
    verifyPan: verifyPanProcedure.procedure,
    createPanBatch: createPanBatchProcedure.procedure,
    panBatchStatus: panBatchStatusProcedure.procedure,
    panBatchResults: panBatchResultsProcedure.procedure,
  }),
  employment: restRouterOf({
    verifyEpfo: verifyEpfoProcedure.procedure,
    createEpfoBatch: createEpfoBatchProcedure.procedure,
    epfoBatchStatus: epfoBatchStatusProcedure.procedure,
    epfoBatchResults: epfoBatchResultsProcedure.procedure,
  }),
  payments: restRouterOf({
    createCheckout: createCheckoutProcedure.procedure,
    verify: verifyPaymentProcedure.procedure,
    status: paymentStatusProcedure.procedure,
  }),
  refunds: restRouterOf({
    create: createRefundProcedure.procedure,
    list: listRefundsProcedure.procedure,
    get: getRefundProcedure.procedure,
  }),
  sandbox: restRouterOf({
    simulatePayment: simulatePaymentProcedure.procedure,
  }),
  kyc: restRouterOf({
    aadhaarGenerateOtp: generateOtpProcedure.procedure,
    aadhaarVerifyOtp: verifyOtpProcedure.procedure,
    panVerify: panKycProcedure.procedure,
    bankVerify: bankKycProcedure.procedure,
  }),
});

/**
 * The REST route table: method and path (from each operation's meta) → the procedure that serves it.
 * A test holds it equal to the generated OpenAPI document, so no procedure is left out or served twice.
 */
export const REST_OPERATIONS: RestOperation[] = [
  restOperation(verifyPanProcedure),
  restOperation(createPanBatchProcedure),
  restOperation(panBatchStatusProcedure),
  restOperation(panBatchResultsProcedure),
  restOperation(verifyEpfoProcedure),
  restOperation(createEpfoBatchProcedure),
  restOperation(epfoBatchStatusProcedure),
  restOperation(epfoBatchResultsProcedure),
  restOperation(createCheckoutProcedure),
  restOperation(verifyPaymentProcedure),
  restOperation(paymentStatusProcedure),
  restOperation(createRefundProcedure),
  restOperation(listRefundsProcedure),
  restOperation(getRefundProcedure),
  restOperation(simulatePaymentProcedure),
  restOperation(generateOtpProcedure),
  restOperation(verifyOtpProcedure),
  restOperation(panKycProcedure),
  restOperation(bankKycProcedure),
];
