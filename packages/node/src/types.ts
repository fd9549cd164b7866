// Request and answer types of every operation, taken from the generated OpenAPI types
// (./generated/openapi.ts, written by scripts/sdk-types.ts from the server's own document).
import type { components, operations, webhooks } from "./generated/openapi.js";
import type { OPERATIONS } from "./operations.js";

type Schemas = components["schemas"];
type OperationId<N extends keyof typeof OPERATIONS> = (typeof OPERATIONS)[N]["operationId"];

type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : never;
type SuccessBody<O> = O extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]> : never;
/** `Omit` over each member of a union (EPFO's exactly-one-of stays a union). */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The `data` of an operation's success envelope. */
export type ResponseData<N extends keyof typeof OPERATIONS> = SuccessBody<operations[OperationId<N>]> extends { data: infer D } ? D : never;

/** An operation's JSON body as the document describes it (KYC bodies without `merchantId`: the client adds it). */
export type RequestBody<N extends keyof typeof OPERATIONS> = operations[OperationId<N>] extends { requestBody?: { content: { "application/json": infer B } } }
  ? DistributiveOmit<B, "merchantId">
  : never;

/** An operation's query parameters. */
export type QueryParams<N extends keyof typeof OPERATIONS> = NonNullable<operations[OperationId<N>]["parameters"]["query"]>;

export type PanVerification = Schemas["PanVerification"];
export type EpfoVerification = Schemas["EpfoVerification"];
export type BatchSummary = Schemas["BatchSummary"];
export type BatchStatus = Schemas["BatchStatus"];
export type PanBatchResults = Schemas["PanBatchResults"];
export type EpfoBatchResults = Schemas["EpfoBatchResults"];
export type PanBatchResultItem = PanBatchResults["items"][number];
export type EpfoBatchResultItem = EpfoBatchResults["items"][number];
export type CheckoutCreated = Schemas["CheckoutCreated"];
export type PaymentVerification = Schemas["PaymentVerification"];
export type PaymentStatus = Schemas["PaymentStatus"];
export type Refund = Schemas["Refund"];
export type SimulatedPayment = Schemas["SimulatedPayment"];
export type AadhaarOtpSent = Schemas["AadhaarOtpSent"];
export type AadhaarKyc = Schemas["AadhaarKyc"];
export type PanKyc = Schemas["PanKyc"];
export type BankKyc = Schemas["BankKyc"];

/** Every webhook event type the server sends (the document's `webhooks`). */
export type WebhookEventType = keyof webhooks;
/** The event of one type, from its `WebhookEvent.<type>` schema. */
export type WebhookEventOf<T extends WebhookEventType> = Schemas[`WebhookEvent.${T}`];
/** Any event: narrow it on `type`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

export type { components, operations, paths, webhooks } from "./generated/openapi.js";
