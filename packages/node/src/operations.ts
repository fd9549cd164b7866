import type { operations } from "./generated/openapi.js";

/** How an operation authenticates (contract B2): `/v1` bearer, payments' three headers, KYC's two headers plus `merchantId` in the body. */
export type AuthScheme = "bearer" | "merchant" | "kyc";

export interface OperationSpec {
  /** The operation's id in the OpenAPI document (its types are generated under this name). */
  operationId: keyof operations;
  method: "GET" | "POST";
  path: string;
  auth: AuthScheme;
}

/**
 * Every REST operation, by the SDK method that calls it. tests/integration/sdk.test.ts holds this table
 * equal to the server's OpenAPI document (method, path, auth scheme), so a new operation without a
 * method fails the tests; `operationId` must name an operation of the generated types, so a renamed one
 * fails the type check.
 */
export const OPERATIONS = {
  "pan.verify": { operationId: "identity-verifyPan", method: "POST", path: "/v1/identity/pan/verify", auth: "bearer" },
  "pan.batches.create": { operationId: "identity-createPanBatch", method: "POST", path: "/v1/identity/pan/batch", auth: "bearer" },
  "pan.batches.retrieve": { operationId: "identity-panBatchStatus", method: "GET", path: "/v1/identity/pan/batch/{batch_id}", auth: "bearer" },
  "pan.batches.results": { operationId: "identity-panBatchResults", method: "GET", path: "/v1/identity/pan/batch/{batch_id}/results", auth: "bearer" },
  "epfo.verify": { operationId: "employment-verifyEpfo", method: "POST", path: "/v1/employment/epfo/verify", auth: "bearer" },
  "epfo.batches.create": { operationId: "employment-createEpfoBatch", method: "POST", path: "/v1/employment/epfo/batch", auth: "bearer" },
  "epfo.batches.retrieve": { operationId: "employment-epfoBatchStatus", method: "GET", path: "/v1/employment/epfo/batch/{batch_id}", auth: "bearer" },
  "epfo.batches.results": {
    operationId: "employment-epfoBatchResults",
    method: "GET",
    path: "/v1/employment/epfo/batch/{batch_id}/results",
    auth: "bearer",
  },
  "checkout.create": { operationId: "payments-createCheckout", method: "POST", path: "/api/checkout", auth: "merchant" },
  "payments.verify": { operationId: "payments-verify", method: "POST", path: "/api/payments/verify", auth: "merchant" },
  "payments.retrieve": { operationId: "payments-status", method: "GET", path: "/api/payments/{paymentId}/status", auth: "merchant" },
  "payments.refunds.create": { operationId: "refunds-create", method: "POST", path: "/api/payments/{paymentId}/refunds", auth: "merchant" },
  "payments.refunds.list": { operationId: "refunds-list", method: "GET", path: "/api/payments/{paymentId}/refunds", auth: "merchant" },
  "payments.refunds.retrieve": { operationId: "refunds-get", method: "GET", path: "/api/refunds/{refundId}", auth: "merchant" },
  "sandbox.payments.simulate": {
    operationId: "sandbox-simulatePayment",
    method: "POST",
    path: "/api/sandbox/payments/{paymentId}/simulate",
    auth: "merchant",
  },
  "kyc.aadhaar.generateOtp": { operationId: "kyc-aadhaarGenerateOtp", method: "POST", path: "/api/kyc/aadhaar/generate-otp", auth: "kyc" },
  "kyc.aadhaar.verifyOtp": { operationId: "kyc-aadhaarVerifyOtp", method: "POST", path: "/api/kyc/aadhaar/verify-otp", auth: "kyc" },
  "kyc.pan": { operationId: "kyc-panVerify", method: "POST", path: "/api/kyc/pan/verify", auth: "kyc" },
  "kyc.bank": { operationId: "kyc-bankVerify", method: "POST", path: "/api/kyc/bank/verify", auth: "kyc" },
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof OPERATIONS;
