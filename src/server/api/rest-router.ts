import { batchResultsMetas } from "@/server/api/batches/batch-results.schema";
import { epfoBatchResultsProcedure, panBatchResultsProcedure } from "@/server/api/batches/batch-results";
import { batchStatusMetas } from "@/server/api/batches/batch-status.schema";
import { epfoBatchStatusProcedure, panBatchStatusProcedure } from "@/server/api/batches/batch-status";
import { createBatchMetas } from "@/server/api/batches/create-batch.schema";
import { createEpfoBatchProcedure, createPanBatchProcedure } from "@/server/api/batches/create-batch";
import { verifyEpfoMeta } from "@/server/api/employment/verify-epfo.schema";
import { verifyEpfoProcedure } from "@/server/api/employment/verify-epfo";
import { verifyPanMeta } from "@/server/api/identity/verify-pan.schema";
import { verifyPanProcedure } from "@/server/api/identity/verify-pan";
import { bankKycMeta } from "@/server/api/kyc/bank-kyc.schema";
import { bankKycProcedure } from "@/server/api/kyc/bank-kyc";
import { generateOtpMeta } from "@/server/api/kyc/generate-otp.schema";
import { generateOtpProcedure } from "@/server/api/kyc/generate-otp";
import { panKycMeta } from "@/server/api/kyc/pan-kyc.schema";
import { panKycProcedure } from "@/server/api/kyc/pan-kyc";
import { verifyOtpMeta } from "@/server/api/kyc/verify-otp.schema";
import { verifyOtpProcedure } from "@/server/api/kyc/verify-otp";
import { createCheckoutMeta } from "@/server/api/payments/create-checkout.schema";
import { createCheckoutProcedure } from "@/server/api/payments/create-checkout";
import { paymentStatusMeta } from "@/server/api/payments/payment-status.schema";
import { paymentStatusProcedure } from "@/server/api/payments/payment-status";
import { verifyPaymentMeta } from "@/server/api/payments/verify-payment.schema";
import { verifyPaymentProcedure } from "@/server/api/payments/verify-payment";
import { createRefundMeta } from "@/server/api/refunds/create-refund.schema";
import { createRefundProcedure } from "@/server/api/refunds/create-refund";
import { getRefundMeta } from "@/server/api/refunds/get-refund.schema";
import { getRefundProcedure } from "@/server/api/refunds/get-refund";
import { listRefundsMeta } from "@/server/api/refunds/list-refunds.schema";
import { listRefundsProcedure } from "@/server/api/refunds/list-refunds";
import { simulatePaymentMeta } from "@/server/api/sandbox/simulate.schema";
import { simulatePaymentProcedure } from "@/server/api/sandbox/simulate";
import { restOperation, type RestOperation } from "@/server/rest/operations";
import { restRouterOf } from "@/server/rest/trpc";

/** Every public REST operation (`/v1`, `/api`): the tRPC procedures the OpenAPI document is generated from. */
export const restRouter = restRouterOf({
  identity: restRouterOf({
    verifyPan: verifyPanProcedure,
    createPanBatch: createPanBatchProcedure,
    panBatchStatus: panBatchStatusProcedure,
    panBatchResults: panBatchResultsProcedure,
  }),
  employment: restRouterOf({
    verifyEpfo: verifyEpfoProcedure,
    createEpfoBatch: createEpfoBatchProcedure,
    epfoBatchStatus: epfoBatchStatusProcedure,
    epfoBatchResults: epfoBatchResultsProcedure,
  }),
  payments: restRouterOf({
    createCheckout: createCheckoutProcedure,
    verify: verifyPaymentProcedure,
    status: paymentStatusProcedure,
  }),
  refunds: restRouterOf({
    create: createRefundProcedure,
    list: listRefundsProcedure,
    get: getRefundProcedure,
  }),
  sandbox: restRouterOf({
    simulatePayment: simulatePaymentProcedure,
  }),
  kyc: restRouterOf({
    aadhaarGenerateOtp: generateOtpProcedure,
    aadhaarVerifyOtp: verifyOtpProcedure,
    panVerify: panKycProcedure,
    bankVerify: bankKycProcedure,
  }),
});

/**
 * The REST route table: method and path (from each operation's meta) → the procedure that serves it.
 * A test holds it equal to the generated OpenAPI document, so no procedure is left out or served twice.
 */
export const REST_OPERATIONS: RestOperation[] = [
  restOperation(verifyPanMeta, verifyPanProcedure),
  restOperation(createBatchMetas.PAN, createPanBatchProcedure),
  restOperation(batchStatusMetas.PAN, panBatchStatusProcedure),
  restOperation(batchResultsMetas.PAN, panBatchResultsProcedure),
  restOperation(verifyEpfoMeta, verifyEpfoProcedure),
  restOperation(createBatchMetas.EPFO, createEpfoBatchProcedure),
  restOperation(batchStatusMetas.EPFO, epfoBatchStatusProcedure),
  restOperation(batchResultsMetas.EPFO, epfoBatchResultsProcedure),
  restOperation(createCheckoutMeta, createCheckoutProcedure),
  restOperation(verifyPaymentMeta, verifyPaymentProcedure),
  restOperation(paymentStatusMeta, paymentStatusProcedure),
  restOperation(createRefundMeta, createRefundProcedure),
  restOperation(listRefundsMeta, listRefundsProcedure),
  restOperation(getRefundMeta, getRefundProcedure),
  restOperation(simulatePaymentMeta, simulatePaymentProcedure),
  restOperation(generateOtpMeta, generateOtpProcedure),
  restOperation(verifyOtpMeta, verifyOtpProcedure),
  restOperation(panKycMeta, panKycProcedure),
  restOperation(bankKycMeta, bankKycProcedure),
];
