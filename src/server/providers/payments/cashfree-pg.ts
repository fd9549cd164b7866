/**
 * A thin client for the Cashfree Payment Gateway, on the upstream layer (family "payments": one
 * deadline, the body cap, retries only where the first try provably did not take effect, the
 * breaker and the bulkhead). The wire follows the vendor's OpenAPI document, kept with its source in
 * tests/fixtures/cashfree-pg; the `Wire…` types below are the parts of its schemas Parakh reads.
 *
 *   createOrder     POST  /orders                              order_id = the Parakh payment id
 *   getOrder        GET   /orders/{order_id}
 *   getPayments     GET   /orders/{order_id}/payments
 *   pay             POST  /orders/sessions                     an attempt through the payment session
 *   terminateOrder  PATCH /orders/{order_id}                   {order_status: "TERMINATED"}
 *   createRefund    POST  /orders/{order_id}/refunds           refund_id = the Parakh refund id
 *   getRefund       GET   /orders/{order_id}/refunds/{refund_id}
 *
 * A retried create carries the same id; the vendor's "already exists" (409) is answered by reading
 * that order or refund, so one payment never has two orders and one refund is never sent twice. That
 * makes the two creates the only POSTs retried after a connection cut once they were sent.
 * Vendor refusals of the input (a 4xx other than 401, 403, 429) come back as `PgRefusal` where the
 * caller decides what they mean (an attempt or a refund the vendor refused), else as a 502 that does
 * not count against the breaker.
 */
import { AppError } from "@/server/errors";
import {
  UpstreamClient,
  UpstreamFailure,
  unreadableAnswer,
  vendorErrorCode,
  type UpstreamAnswer,
  type UpstreamClientOptions,
  type UpstreamLogger,
} from "@/server/providers/upstream/client";

/** The `x-api-version` the vendor's document names for every operation. */
export const PG_API_VERSION = "2025-01-01";

/**
 * Sent as the customer's phone when the payment has no Indian mobile number. The vendor requires
 * `customer_phone` of exactly 10 characters; neither the payment nor the merchant's record has another
 * number to give, and a made-up real-looking number could reach a stranger.
 */
export const PLACEHOLDER_CUSTOMER_PHONE = "9999999999";

/** Where the vendor sends its webhooks for Parakh's orders, under the app's public origin. */
export const CASHFREE_WEBHOOK_PATH = "/api/providers/cashfree/webhook";

export interface CashfreePgSettings {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  maxConcurrency: number;
  /** Calls started a second (UPSTREAM_MAX_RPS); 0 or absent: no limit. */
  maxRps?: number;
}

/** Tests shorten the breaker's pause and the retry pauses; an operator's check keeps its client unlisted. */
export type CashfreePgTuning = Partial<
  Pick<UpstreamClientOptions, "openMs" | "breaker" | "retryDelayMs" | "maxBodyBytes" | "connectTimeoutMs" | "listed" | "gates">
>;

// ---- The vendor's wire (from the document's schemas) ----

export interface WireCustomerDetails {
  customer_id: string;
  customer_phone: string;
  customer_email?: string;
  customer_name?: string;
}

export interface WireCreateOrderRequest {
  order_id: string;
  order_amount: number;
  order_currency: "INR";
  customer_details: WireCustomerDetails;
  order_meta: { notify_url: string; return_url?: string };
  order_expiry_time: string;
  order_note?: string;
}

export interface WireOrderEntity {
  cf_order_id?: string | number | null;
  order_id?: string | null;
  order_amount?: number | string | null;
  order_currency?: string | null;
  order_status?: string | null;
  payment_session_id?: string | null;
  order_expiry_time?: string | null;
}

export type WireUpiChannel = "collect" | "link" | "qrcode";

export type WirePayMethod = { upi: { channel: WireUpiChannel; upi_id?: string } } | { netbanking: { channel: "link"; netbanking_bank_code: number } };

export interface WirePayOrderRequest {
  payment_session_id: string;
  payment_method: WirePayMethod;
}

export interface WirePayOrderEntity {
  payment_amount?: number | string | null;
  cf_payment_id?: string | number | null;
  payment_method?: string | null;
  channel?: string | null;
  action?: string | null;
  data?: { url?: string | null; payload?: Record<string, unknown> | null; content_type?: string | null; method?: string | null } | null;
}

export interface WirePaymentEntity {
  cf_payment_id?: string | number | null;
  order_id?: string | null;
  payment_status?: string | null;
  payment_amount?: number | string | null;
  payment_currency?: string | null;
  payment_message?: string | null;
  payment_group?: string | null;
  bank_reference?: string | null;
  payment_completion_time?: string | null;
  payment_time?: string | null;
  payment_method?: Record<string, unknown> | null;
  error_details?: { error_code?: string | null; error_description?: string | null; error_reason?: string | null } | null;
}

export interface WireCreateRefundRequest {
  refund_amount: number;
  refund_id: string;
  refund_note?: string;
}

export interface WireRefundEntity {
  cf_refund_id?: string | number | null;
  cf_payment_id?: string | number | null;
  refund_id?: string | null;
  order_id?: string | null;
  refund_amount?: number | string | null;
  refund_status?: string | null;
  status_description?: string | null;
  processed_at?: string | null;
}

// ---- What Parakh reads out of it ----

export interface PgOrder {
  orderId: string;
  cfOrderId: string | null;
  /** ACTIVE, PAID, EXPIRED, TERMINATED, TERMINATION_REQUESTED (as the vendor says). */
  status: string;
  amountPaise: number;
  paymentSessionId: string | null;
}

export interface PgPayment {
  cfPaymentId: string;
  orderId: string | null;
  /** SUCCESS, NOT_ATTEMPTED, FAILED, USER_DROPPED, VOID, CANCELLED, PENDING (as the vendor says). */
  status: string;
  amountPaise: number | null;
  /** `payment_currency`, as the vendor writes it; null when it gives none. */
  currency: string | null;
  /** The vendor's payment group: upi, net_banking, credit_card, … */
  group: string | null;
  bankReference: string | null;
  errorCode: string | null;
  errorDescription: string | null;
  /** When the payment began (`payment_time`), ms since the epoch; null when absent or unreadable. */
  startedAt: number | null;
}

export type PgAttemptMethod = { kind: "upi-collect"; upiId: string } | { kind: "upi-intent" } | { kind: "upi-qr" } | { kind: "netbanking"; bankCode: number };

export interface PgAttempt {
  cfPaymentId: string | null;
  /** link: send the customer to `redirectUrl`; custom: Parakh shows `intentUrl` or `qrCode`, or waits (collect). */
  action: string | null;
  /** The `upi://pay…` link for UPI intent. */
  intentUrl: string | null;
  /** A `data:image/png;base64,…` QR for UPI QR. */
  qrCode: string | null;
  /** The bank page for netbanking. */
  redirectUrl: string | null;
}

export interface PgRefund {
  refundId: string;
  cfRefundId: string | null;
  /** SUCCESS, PENDING, CANCELLED, ONHOLD (as the vendor says). */
  status: string;
  amountPaise: number | null;
  statusDescription: string | null;
}

/** The vendor refused the call's input (a 4xx): its HTTP status and error code, never its message. */
export interface PgRefusal {
  refused: true;
  httpStatus: number;
  vendorCode: string | null;
}

export interface PgTermination {
  /** TERMINATED or TERMINATION_REQUESTED when the vendor took it; null when it refused (e.g. the order is already paid). */
  orderStatus: string | null;
  refusal: PgRefusal | null;
}

export interface PgOrderInput {
  /** The Parakh payment id, sent as the vendor's order_id. */
  paymentId: string;
  amountPaise: number;
  expiresAt: Date;
  customer: { name?: string | null; email?: string | null; phone?: string | null } | null;
  /** Where the vendor's pages send the customer back (the hosted page). */
  returnUrl?: string | null;
}

/** Paise as the vendor's rupee amount with two decimals (499.00 is sent as the number 499). */
export function rupees(paise: number): number {
  return Number((paise / 100).toFixed(2));
}

/** The vendor's amount (a number, or a string of digits in some answers) as paise; null when absent or unreadable. */
export function paiseFrom(value: unknown): number | null {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 100) : null;
}

/** An Indian mobile number as the vendor wants it: exactly 10 digits. A +91 or 91 prefix is dropped; anything else is not sent. */
export function vendorPhone(phone: string | null | undefined): string | null {
  const digits = (phone ?? "").replace(/^\+/, "");
  if (/^\d{10}$/.test(digits)) return digits;
  if (/^91\d{10}$/.test(digits)) return digits.slice(2);
  return null;
}

function text(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return null;
  const t = value.trim();
  return t === "" ? null : t;
}

function objectOf(answer: UpstreamAnswer): Record<string, unknown> {
  const body = answer.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw unreadableAnswer(`HTTP ${answer.status} without a JSON object`);
  return body as Record<string, unknown>;
}

function refusalOf(answer: UpstreamAnswer): PgRefusal {
  return { refused: true, httpStatus: answer.status, vendorCode: vendorErrorCode(answer.body) };
}

/** A 4xx the call has no reading for: an answer Parakh cannot use, not an outage of the vendor. */
function unexpected(answer: UpstreamAnswer, what: string): UpstreamFailure {
  const code = vendorErrorCode(answer.body);
  return new UpstreamFailure("UPSTREAM_ERROR", `The payment processor refused ${what} (HTTP ${answer.status}${code ? `, ${code}` : ""}).`, {
    countsAsFailure: false,
  });
}

export function orderFromWire(wire: WireOrderEntity): PgOrder {
  const orderId = text(wire.order_id);
  const amountPaise = paiseFrom(wire.order_amount);
  const status = text(wire.order_status);
  if (!orderId || amountPaise === null || !status) throw unreadableAnswer("an order without its id, amount or status");
  return { orderId, cfOrderId: text(wire.cf_order_id), status, amountPaise, paymentSessionId: text(wire.payment_session_id) };
}

export function paymentFromWire(wire: WirePaymentEntity): PgPayment {
  const cfPaymentId = text(wire.cf_payment_id);
  const status = text(wire.payment_status);
  if (!cfPaymentId || !status) throw unreadableAnswer("a payment without its id or status");
  return {
    cfPaymentId,
    orderId: text(wire.order_id),
    status,
    amountPaise: paiseFrom(wire.payment_amount),
    currency: text(wire.payment_currency),
    group: text(wire.payment_group),
    bankReference: text(wire.bank_reference),
    errorCode: text(wire.error_details?.error_code),
    errorDescription: text(wire.error_details?.error_description),
    startedAt: timeOf(wire.payment_time),
  };
}

/** The vendor's times carry their offset (`2021-10-07T19:42:44+05:30`); one without a date or an offset is not read. */
function timeOf(value: unknown): number | null {
  const t = text(value);
  if (!t || !/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(t)) return null;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : null;
}

export function refundFromWire(wire: WireRefundEntity): PgRefund {
  const refundId = text(wire.refund_id);
  const status = text(wire.refund_status);
  if (!refundId || !status) throw unreadableAnswer("a refund without its id or status");
  return {
    refundId,
    cfRefundId: text(wire.cf_refund_id),
    status,
    amountPaise: paiseFrom(wire.refund_amount),
    statusDescription: text(wire.status_description),
  };
}

export function attemptFromWire(wire: WirePayOrderEntity, method: PgAttemptMethod): PgAttempt {
  const payload = wire.data?.payload && typeof wire.data.payload === "object" ? wire.data.payload : {};
  const attempt: PgAttempt = {
    cfPaymentId: text(wire.cf_payment_id),
    action: text(wire.action),
    intentUrl: null,
    qrCode: null,
    redirectUrl: null,
  };
  switch (method.kind) {
    case "upi-intent":
      attempt.intentUrl = text(payload.default);
      if (!attempt.intentUrl?.startsWith("upi://")) throw unreadableAnswer("a UPI intent answer without its upi:// link");
      break;
    case "upi-qr":
      attempt.qrCode = text(payload.qrcode);
      if (!attempt.qrCode?.startsWith("data:image/")) throw unreadableAnswer("a UPI QR answer without its image");
      break;
    case "netbanking":
      attempt.redirectUrl = text(wire.data?.url);
      if (!attempt.redirectUrl || !/^https?:\/\//.test(attempt.redirectUrl)) throw unreadableAnswer("a netbanking answer without the bank page");
      break;
    case "upi-collect":
      break;
  }
  return attempt;
}

export class CashfreePgClient {
  readonly upstream: UpstreamClient;
  private readonly notifyUrl: string;

  /** `appUrl` is Parakh's public origin: the vendor's webhooks come back under it. */
  constructor(settings: CashfreePgSettings, appUrl: string, logger: UpstreamLogger, tuning: CashfreePgTuning = {}) {
    this.notifyUrl = `${appUrl.replace(/\/$/, "")}${CASHFREE_WEBHOOK_PATH}`;
    this.upstream = new UpstreamClient({
      family: "payments",
      unavailableCode: "SERVICE_UNAVAILABLE",
      baseUrl: settings.baseUrl.replace(/\/$/, ""),
      headers: { "x-client-id": settings.clientId, "x-client-secret": settings.clientSecret, "x-api-version": PG_API_VERSION },
      timeoutMs: settings.timeoutMs,
      maxConcurrency: settings.maxConcurrency,
      maxRps: settings.maxRps,
      logger,
      ...tuning,
    });
  }

  /** The body of the payment's one order. */
  orderRequest(input: PgOrderInput): WireCreateOrderRequest {
    const customer = input.customer ?? {};
    const details: WireCustomerDetails = {
      customer_id: input.paymentId,
      customer_phone: vendorPhone(customer.phone) ?? PLACEHOLDER_CUSTOMER_PHONE,
    };
    const name = customer.name?.trim();
    if (name && name.length >= 3) details.customer_name = name.slice(0, 100);
    if (customer.email && customer.email.length >= 3 && customer.email.length <= 100) details.customer_email = customer.email;
    const meta: WireCreateOrderRequest["order_meta"] = { notify_url: this.notifyUrl };
    if (input.returnUrl) meta.return_url = input.returnUrl;
    return {
      order_id: input.paymentId,
      order_amount: rupees(input.amountPaise),
      order_currency: "INR",
      customer_details: details,
      order_meta: meta,
      order_expiry_time: input.expiresAt.toISOString(),
    };
  }

  /** The payment's order: created once; a create the vendor already knows is answered by reading that order. */
  async createOrder(input: PgOrderInput): Promise<PgOrder> {
    // The vendor knows the order by its id: a create cut off after it was sent may be sent again.
    const created = await this.upstream.call({ method: "POST", path: "/orders", body: this.orderRequest(input), deduplicated: true }, (answer) => {
      if (answer.status === 409) return null;
      // The vendor names a refused field in its code (`<field>_invalid`): an expiry it will not take.
      if (answer.status === 400 && vendorErrorCode(answer.body)?.startsWith("order_expiry_time")) {
        throw new AppError("PAYMENT_NOT_PAYABLE", "This payment expires too soon to be paid; create a new payment.");
      }
      if (answer.status !== 200) throw unexpected(answer, "the order");
      return orderFromWire(objectOf(answer) as WireOrderEntity);
    });
    const order = created ?? (await this.getOrder(input.paymentId));
    if (!order) throw unreadableAnswer("an order the vendor says exists but cannot find");
    if (order.orderId !== input.paymentId || order.amountPaise !== input.amountPaise) {
      throw unreadableAnswer("an order for another payment or another amount");
    }
    return order;
  }

  /** The order, or null when the vendor has none with that id. */
  async getOrder(orderId: string): Promise<PgOrder | null> {
    return this.upstream.call({ method: "GET", path: `/orders/${encodeURIComponent(orderId)}` }, (answer) => {
      if (answer.status === 404) return null;
      if (answer.status !== 200) throw unexpected(answer, "the order read");
      return orderFromWire(objectOf(answer) as WireOrderEntity);
    });
  }

  /** Every payment attempt the vendor has for the order (empty for an unknown order). */
  async getPayments(orderId: string): Promise<PgPayment[]> {
    return this.upstream.call({ method: "GET", path: `/orders/${encodeURIComponent(orderId)}/payments` }, (answer) => {
      if (answer.status === 404) return [];
      if (answer.status !== 200) throw unexpected(answer, "the payments read");
      if (!Array.isArray(answer.body)) throw unreadableAnswer("a payments list that is not a list");
      return (answer.body as WirePaymentEntity[]).map(paymentFromWire);
    });
  }

  payRequest(paymentSessionId: string, method: PgAttemptMethod): WirePayOrderRequest {
    const paymentMethod: WirePayMethod =
      method.kind === "upi-collect"
        ? { upi: { channel: "collect", upi_id: method.upiId } }
        : method.kind === "upi-intent"
          ? { upi: { channel: "link" } }
          : method.kind === "upi-qr"
            ? { upi: { channel: "qrcode" } }
            : { netbanking: { channel: "link", netbanking_bank_code: method.bankCode } };
    return { payment_session_id: paymentSessionId, payment_method: paymentMethod };
  }

  /** One attempt through the order's payment session; a refusal (an invalid UPI id, a bank not enabled) comes back as such. */
  async pay(paymentSessionId: string, method: PgAttemptMethod): Promise<PgAttempt | PgRefusal> {
    return this.upstream.call({ method: "POST", path: "/orders/sessions", body: this.payRequest(paymentSessionId, method) }, (answer) => {
      if (answer.status === 200) return attemptFromWire(objectOf(answer) as WirePayOrderEntity, method);
      if (answer.status === 400 || answer.status === 409 || answer.status === 422) return refusalOf(answer);
      throw unexpected(answer, "the attempt");
    });
  }

  /** Ends the order so no further attempt can pay it; the vendor refuses when a payment already went through. */
  async terminateOrder(orderId: string): Promise<PgTermination> {
    return this.upstream.call(
      { method: "PATCH", path: `/orders/${encodeURIComponent(orderId)}`, body: { order_status: "TERMINATED" } },
      (answer): PgTermination => {
        if (answer.status === 200) return { orderStatus: orderFromWire(objectOf(answer) as WireOrderEntity).status, refusal: null };
        if (answer.status === 400 || answer.status === 404 || answer.status === 409) return { orderStatus: null, refusal: refusalOf(answer) };
        throw unexpected(answer, "the termination");
      },
    );
  }

  refundRequest(refund: { refundId: string; amountPaise: number; note?: string | null }): WireCreateRefundRequest {
    const body: WireCreateRefundRequest = { refund_amount: rupees(refund.amountPaise), refund_id: refund.refundId };
    const note = refund.note?.trim();
    if (note && note.length >= 3) body.refund_note = note.slice(0, 100);
    return body;
  }

  /**
   * Sends money back. A create the vendor already knows (a retried job) is answered by reading that
   * refund; a refusal (more than is refundable, an order not paid) comes back as such.
   */
  async createRefund(orderId: string, refund: { refundId: string; amountPaise: number; note?: string | null }): Promise<PgRefund | PgRefusal> {
    const created = await this.upstream.call(
      { method: "POST", path: `/orders/${encodeURIComponent(orderId)}/refunds`, body: this.refundRequest(refund), deduplicated: true },
      (answer): PgRefund | PgRefusal | null => {
        if (answer.status === 409) return null;
        if (answer.status === 200) return refundFromWire(objectOf(answer) as WireRefundEntity);
        if (answer.status === 400 || answer.status === 404 || answer.status === 422) return refusalOf(answer);
        throw unexpected(answer, "the refund");
      },
    );
    if (created) return created;
    const existing = await this.getRefund(orderId, refund.refundId);
    if (!existing) throw unreadableAnswer("a refund the vendor says exists but cannot find");
    return existing;
  }

  /** The refund, or null when the vendor has none with that id on the order. */
  async getRefund(orderId: string, refundId: string): Promise<PgRefund | null> {
    return this.upstream.call({ method: "GET", path: `/orders/${encodeURIComponent(orderId)}/refunds/${encodeURIComponent(refundId)}` }, (answer) => {
      if (answer.status === 404) return null;
      if (answer.status !== 200) throw unexpected(answer, "the refund read");
      return refundFromWire(objectOf(answer) as WireRefundEntity);
    });
  }
}

export function isRefusal(value: unknown): value is PgRefusal {
  return typeof value === "object" && value !== null && (value as { refused?: unknown }).refused === true;
}
