import { epfoBatch, panBatch } from "@/server/api/batches/batch";
import { verifyEpfoMeta } from "@/server/api/employment/verify-epfo.schema";
import { verifyEpfoProcedure } from "@/server/api/employment/verify-epfo";
import { verifyPanMeta } from "@/server/api/identity/verify-pan.schema";
import { verifyPanProcedure } from "@/server/api/identity/verify-pan";
import { bankKycMeta, generateOtpMeta, panKycMeta, verifyOtpMeta } from "@/server/api/kyc/kyc.schema";
import { bankKycProcedure, generateOtpProcedure, panKycProcedure, verifyOtpProcedure } from "@/server/api/kyc/kyc";
import { createCheckoutMeta } from "@/server/api/payments/create-checkout.schema";
import { createCheckoutProcedure } from "@/server/api/payments/create-checkout";
import { paymentStatusMeta } from "@/server/api/payments/payment-status.schema";
import { paymentStatusProcedure } from "@/server/api/payments/payment-status";
import { verifyPaymentMeta } from "@/server/api/payments/verify-payment.schema";
import { verifyPaymentProcedure } from "@/server/api/payments/verify-payment";
import { createRefundMeta, getRefundMeta, listRefundsMeta } from "@/server/api/refunds/refund.schema";
import { createRefundProcedure, getRefundProcedure, listRefundsProcedure } from "@/server/api/refunds/refunds";
import { simulatePaymentMeta } from "@/server/api/sandbox/simulate.schema";
import { simulatePaymentProcedure } from "@/server/api/sandbox/simulate";
import type { RestOperationMeta } from "@/server/rest/meta";
import { restOperation, type RestOperation } from "@/server/rest/operations";
import { restCallerFactory, restRouterOf } from "@/server/rest/trpc";

/** Every public REST operation (`/v1`, `/api`): the tRPC procedures the OpenAPI document is generated from. */
export const restRouter = restRouterOf({
  identity: restRouterOf({
    verifyPan: verifyPanProcedure,
    createPanBatch: panBatch.create,
    panBatchStatus: panBatch.status,
    panBatchResults: panBatch.results,
  }),
  employment: restRouterOf({
    verifyEpfo: verifyEpfoProcedure,
    createEpfoBatch: epfoBatch.create,
    epfoBatchStatus: epfoBatch.status,
    epfoBatchResults: epfoBatch.results,
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

const createRestCaller = restCallerFactory(restRouter);
type RestCaller = ReturnType<typeof createRestCaller>;
const operation = <I>(meta: RestOperationMeta, pick: (caller: RestCaller) => (input: I) => Promise<unknown>) => restOperation(meta, createRestCaller, pick);

/**
 * The REST route table: method and path (from each operation's meta) → the procedure that serves it.
 * A test holds it equal to the generated OpenAPI document, so no procedure is left out or served twice.
 */
export const REST_OPERATIONS: RestOperation[] = [
  operation(verifyPanMeta, (c) => c.identity.verifyPan),
  operation(panBatch.meta.create, (c) => c.identity.createPanBatch),
  operation(panBatch.meta.status, (c) => c.identity.panBatchStatus),
  operation(panBatch.meta.results, (c) => c.identity.panBatchResults),
  operation(verifyEpfoMeta, (c) => c.employment.verifyEpfo),
  operation(epfoBatch.meta.create, (c) => c.employment.createEpfoBatch),
  operation(epfoBatch.meta.status, (c) => c.employment.epfoBatchStatus),
  operation(epfoBatch.meta.results, (c) => c.employment.epfoBatchResults),
  operation(createCheckoutMeta, (c) => c.payments.createCheckout),
  operation(verifyPaymentMeta, (c) => c.payments.verify),
  operation(paymentStatusMeta, (c) => c.payments.status),
  operation(createRefundMeta, (c) => c.refunds.create),
  operation(listRefundsMeta, (c) => c.refunds.list),
  operation(getRefundMeta, (c) => c.refunds.get),
  operation(simulatePaymentMeta, (c) => c.sandbox.simulatePayment),
  operation(generateOtpMeta, (c) => c.kyc.aadhaarGenerateOtp),
  operation(verifyOtpMeta, (c) => c.kyc.aadhaarVerifyOtp),
  operation(panKycMeta, (c) => c.kyc.panVerify),
  operation(bankKycMeta, (c) => c.kyc.bankVerify),
];
