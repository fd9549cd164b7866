/**
 * A stand-in for the Cashfree Payment Gateway on a loopback port: the order, Order Pay, payments and
 * refund endpoints Parakh's live payment client calls, answering from orders, payments and refunds
 * kept in memory, with faults a test can script, and signed webhooks it can send to Parakh (right,
 * wrong, missing or stale signatures; any number of times, in any order).
 *
 * Every request it receives, every answer it sends and every webhook it builds is checked against
 * the vendor's OpenAPI document (tests/fixtures/cashfree-pg, read as that folder's README says). A
 * mismatch is recorded in `problems`; tests assert it stays empty.
 *
 * Payments move only when a test says so: `settle` ends an order's pending payment (success, failure,
 * a customer who dropped off) and `settleRefund` ends a refund, each returning the webhook the
 * vendor would send; `sendWebhook` delivers one.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { loosen, requestBody, tighten, walk } from "./fake-cashfree-verification";

type Json = Record<string, any>;

export const PG_FIXTURE = path.join(__dirname, "../fixtures/cashfree-pg/pg-openapi.json");

export type PgOperation =
  "PGCreateOrder" | "PGFetchOrder" | "PGTerminateOrder" | "PGPayOrder" | "PGOrderFetchPayments" | "PGOrderCreateRefund" | "PGOrderFetchRefund";

interface Endpoint {
  operation: PgOperation;
  method: "GET" | "POST" | "PATCH";
  /** As the document writes it, `{name}` for a path parameter. */
  path: string;
}

const ENDPOINTS: Endpoint[] = [
  { operation: "PGCreateOrder", method: "POST", path: "/orders" },
  { operation: "PGPayOrder", method: "POST", path: "/orders/sessions" },
  { operation: "PGFetchOrder", method: "GET", path: "/orders/{order_id}" },
  { operation: "PGTerminateOrder", method: "PATCH", path: "/orders/{order_id}" },
  { operation: "PGOrderFetchPayments", method: "GET", path: "/orders/{order_id}/payments" },
  { operation: "PGOrderCreateRefund", method: "POST", path: "/orders/{order_id}/refunds" },
  { operation: "PGOrderFetchRefund", method: "GET", path: "/orders/{order_id}/refunds/{refund_id}" },
];

function route(method: string | undefined, pathName: string): { endpoint: Endpoint; params: Record<string, string> } | null {
  for (const endpoint of ENDPOINTS) {
    if (endpoint.method !== method) continue;
    const names: string[] = [];
    const pattern = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    const match = new RegExp(`^${pattern}$`).exec(pathName);
    if (match) return { endpoint, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)])) };
  }
  return null;
}

/**
 * Answers and webhooks: the verification fixtures' loose reading, and a `oneOf` read as `anyOf`
 * (the document's payment-method alternatives name no required property, so a loosely read answer
 * fits several of them at once).
 */
function loosenPg(doc: Json): Json {
  loosen(doc);
  walk(doc.components?.schemas, (s) => {
    if (s.oneOf) {
      s.anyOf = s.oneOf;
      delete s.oneOf;
    }
  });
  return doc;
}

export interface PgValidators {
  operation: PgOperation;
  /** Headers the operation requires: its required header parameters and, where it has security, the credentials. */
  headers: { required: string[]; apiVersion: string | null };
  request: ValidateFunction;
  parameters: ValidateFunction;
  answers: Map<number, ValidateFunction>;
  examples: { where: string; validate: ValidateFunction; value: unknown }[];
}

export interface PgSchemaSet {
  endpoints: Map<PgOperation, PgValidators>;
  paymentWebhook: ValidateFunction;
  refundWebhook: ValidateFunction;
}

/** Validators for each operation and for the two webhooks (exported for the test that holds the rules to the document's own examples). */
export function loadPgValidators(): PgSchemaSet {
  const doc = JSON.parse(fs.readFileSync(PG_FIXTURE, "utf8")) as Json;
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ ...tighten(structuredClone(doc)), $id: "request:cashfree-pg" });
  ajv.addSchema({ ...loosenPg(structuredClone(doc)), $id: "answer:cashfree-pg" });
  const at = (ref: string): Json =>
    ref
      .replace(/^#\//, "")
      .split("/")
      .reduce((n: Json, k: string) => n[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  const schemaRef = (schema: Json, where: string) => (schema.$ref ? (schema.$ref as string).replace(/^#/, "") : where);
  const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

  const endpoints = new Map<PgOperation, PgValidators>();
  for (const endpoint of ENDPOINTS) {
    const method = endpoint.method.toLowerCase();
    const op = doc.paths[endpoint.path][method] as Json;
    const opAt = `/paths/${escape(endpoint.path)}/${method}`;
    let request: ValidateFunction;
    if (op.requestBody) {
      const body = op.requestBody.$ref ? at(op.requestBody.$ref as string) : (op.requestBody as Json);
      const bodyAt = op.requestBody.$ref ? (op.requestBody.$ref as string).replace(/^#/, "") : `${opAt}/requestBody`;
      const schema = body.content["application/json"].schema as Json;
      request = ajv.compile({ $ref: `request:cashfree-pg#${schemaRef(schema, `${bodyAt}/content/application~1json/schema`)}` });
    } else {
      request = ajv.compile({ type: "object", maxProperties: 0 });
    }
    const declared = ((op.parameters ?? []) as Json[]).map((p) => (p.$ref ? at(p.$ref as string) : p));
    const inPathOrQuery = declared.filter((p) => p.in === "path" || p.in === "query");
    const parameters = ajv.compile({
      type: "object",
      properties: Object.fromEntries(inPathOrQuery.map((p) => [p.name, p.schema ?? {}])),
      required: inPathOrQuery.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    });
    const requiredHeaders = declared.filter((p) => p.in === "header" && p.required).map((p) => String(p.name).toLowerCase());
    const apiVersion = declared.find((p) => p.in === "header" && p.name === "x-api-version")?.schema?.default ?? null;
    // The first security alternative is the one Parakh uses (client id and secret); an operation without security needs none.
    const security = ((op.security ?? []) as Json[])[0] ?? {};
    for (const name of Object.keys(security)) requiredHeaders.push(String(doc.components.securitySchemes[name].name).toLowerCase());

    const answers = new Map<number, ValidateFunction>();
    const examples: PgValidators["examples"] = [];
    for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
      const media = response.content?.["application/json"] as Json | undefined;
      if (!media) continue;
      const validate = ajv.compile({
        $ref: `answer:cashfree-pg#${schemaRef(media.schema as Json, `${opAt}/responses/${status}/content/application~1json/schema`)}`,
      });
      answers.set(Number(status), validate);
      for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, Json>)) {
        examples.push({ where: `${endpoint.operation} ${status} ${name}`, validate, value: example.$ref ? at(example.$ref as string).value : example.value });
      }
    }
    if (op.requestBody) {
      const body = op.requestBody.$ref ? at(op.requestBody.$ref as string) : (op.requestBody as Json);
      for (const [name, example] of Object.entries((body.content["application/json"].examples ?? {}) as Record<string, Json>)) {
        examples.push({
          where: `${endpoint.operation} request ${name}`,
          validate: request,
          value: example.$ref ? at(example.$ref as string).value : example.value,
        });
      }
    }
    endpoints.set(endpoint.operation, {
      operation: endpoint.operation,
      headers: { required: requiredHeaders, apiVersion },
      request,
      parameters,
      answers,
      examples,
    });
  }
  return {
    endpoints,
    paymentWebhook: ajv.compile({ $ref: "answer:cashfree-pg#/components/schemas/PaymentWebhook" }),
    refundWebhook: ajv.compile({ $ref: "answer:cashfree-pg#/components/schemas/RefundWebhook" }),
  };
}

let compiled: PgSchemaSet | undefined;

/** Compiling the document takes a while; every fake shares one set (validators keep no state between calls). */
function sharedSchemas(): PgSchemaSet {
  compiled ??= loadPgValidators();
  return compiled;
}

export type PgFault =
  | "500"
  /** Not in the document (its answer is not checked): the one 5xx after which a POST may be retried. */
  | "503"
  | "429"
  | "401"
  /** Not in the document (its answer is not checked): the vendor's refusal of an address it has not whitelisted. */
  | "403"
  /** Headers never come. */
  | "hang"
  /** The connection is cut before any answer. */
  | "reset"
  | "malformed-json"
  /** The answer the call would get, valid, padded with spaces after its JSON past 1 MiB (sent in chunks). */
  | "huge-body"
  /** A 400 refusing the request, with the vendor's own example of its body. */
  | "400"
  /** A 400 refusing the order's expiry, coded as the vendor codes a refused field (`<field>_invalid`). */
  | "expiry-refused";

interface Script {
  fault: PgFault;
  operation: PgOperation | null;
  left: number;
  retryAfter?: string;
  /** The request takes effect first (an order is made, a refund is taken), then the fault answers. */
  afterEffect: boolean;
}

export interface FakePgRequest {
  method: string;
  path: string;
  operation: PgOperation;
  params: Record<string, string>;
  body: Json;
  headers: http.IncomingHttpHeaders;
}

interface FakeOrder {
  entity: Json;
  payments: Json[];
  refunds: Map<string, Json>;
}

/** The vendor's answer for a UPI id it refuses in the fake (any id ending `@invalid`). */
export const INVALID_UPI_SUFFIX = "@invalid";

export interface SendOptions {
  /** right (default), wrong (another secret), missing (no signature header), or a given value. */
  signature?: "right" | "wrong" | "missing" | { value: string };
  /** Milliseconds since the epoch; default now. */
  timestampMs?: number;
  /** The body as sent; default the vendor's serialisation of the payload. */
  rawBody?: Buffer;
}

export interface WebhookSent {
  status: number;
  body: string;
  rawBody: Buffer;
  headers: Record<string, string>;
}

/** The vendor's JSON: amounts keep two decimals (`170.00`), which a re-serialised body loses. */
export function vendorJson(payload: unknown): string {
  const marker = "@@vendor-amount@@";
  const text = JSON.stringify(payload, (key, value: unknown) =>
    /(^|_)amount$/.test(key) && typeof value === "number" ? `${marker}${value.toFixed(2)}` : value,
  );
  return text.replace(new RegExp(`"${marker}(-?\\d+\\.\\d{2})"`, "g"), "$1");
}

/** Base64(HMAC-SHA256(timestamp + raw body, secret)), computed here apart from Parakh's verifier. */
export function vendorSignature(rawBody: Buffer, timestamp: string, secret: string): string {
  return crypto
    .createHmac("sha256", secret)
    .update(Buffer.concat([Buffer.from(timestamp), rawBody]))
    .digest("base64");
}

export class FakeCashfreePg {
  readonly requests: FakePgRequest[] = [];
  readonly problems: string[] = [];
  readonly orders = new Map<string, FakeOrder>();
  url = "";
  private readonly schemas = sharedSchemas();
  private readonly scripts: Script[] = [];
  /** Payment session id → order id. */
  readonly sessions = new Map<string, string>();
  /** Browser-facing pages (the vendor's JS checkout and card page); true when one answered. */
  pages: ((req: http.IncomingMessage, res: http.ServerResponse, rawBody: Buffer) => Promise<boolean>) | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;
  private nextId = 5_114_910_000;

  constructor(private readonly options: { clientId: string; clientSecret: string }) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  /** On `port` (default: any free one) of 127.0.0.1. */
  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/pg`;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests the fake received for an operation (or all). */
  count(operation?: PgOperation): number {
    return operation ? this.requests.filter((r) => r.operation === operation).length : this.requests.length;
  }

  /** The next `times` requests (default: until `clear`) to the operation (default: any) get the fault. */
  fail(fault: PgFault, options: { operation?: PgOperation; times?: number; retryAfter?: string; afterEffect?: boolean } = {}): void {
    this.scripts.push({
      fault,
      operation: options.operation ?? null,
      left: options.times ?? Infinity,
      retryAfter: options.retryAfter,
      afterEffect: options.afterEffect ?? false,
    });
  }

  clear(): void {
    this.scripts.length = 0;
  }

  /**
   * Ends the order's latest pending payment: SUCCESS (the order is then PAID), FAILED or
   * USER_DROPPED. `amountPaise` and `currency` report another amount or currency than the order's
   * (a vendor-side mismatch). Returns the payment webhook the vendor would send.
   */
  settle(
    orderId: string,
    outcome: "SUCCESS" | "FAILED" | "USER_DROPPED",
    options: { amountPaise?: number; currency?: string; cfPaymentId?: string } = {},
  ): Json {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`no order ${orderId}`);
    const payment = options.cfPaymentId
      ? order.payments.find((p) => p.cf_payment_id === options.cfPaymentId)
      : [...order.payments].reverse().find((p) => p.payment_status === "PENDING");
    if (!payment) throw new Error(`no pending payment on ${orderId}`);
    payment.payment_status = outcome;
    if (options.amountPaise !== undefined) payment.payment_amount = options.amountPaise / 100;
    if (options.currency !== undefined) payment.payment_currency = options.currency;
    payment.payment_completion_time = new Date().toISOString();
    if (outcome === "SUCCESS") {
      payment.payment_message = "Transaction successful";
      payment.bank_reference = String(this.nextId++);
      payment.error_details = null;
      order.entity.order_status = "PAID";
    } else {
      payment.payment_message = outcome === "FAILED" ? "Transaction declined" : "User dropped and did not complete the two factor authentication";
      payment.error_details = {
        error_code: outcome === "FAILED" ? "TRANSACTION_DECLINED" : "USER_DROPPED",
        error_description: outcome === "FAILED" ? "issuer bank or payment service provider declined the transaction" : "user dropped during the payment",
        error_reason: outcome === "FAILED" ? "auth_declined" : "user_dropped",
        error_source: "customer",
      };
    }
    return this.paymentWebhook(orderId, payment.cf_payment_id as string);
  }

  /**
   * A card payment made on the vendor's own checkout page for the order (the customer typed the
   * card there, never at Parakh): the order gets a new payment in that outcome. Returns its webhook.
   */
  payOnCheckoutPage(orderId: string, outcome: "SUCCESS" | "FAILED" | "USER_DROPPED", options: { amountPaise?: number } = {}): Json {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`no order ${orderId}`);
    const amount = order.entity.order_amount as number;
    const cfPaymentId = String(this.nextId++);
    order.payments.push({
      cf_payment_id: cfPaymentId,
      order_id: orderId,
      entity: "payment",
      payment_currency: "INR",
      error_details: null,
      order_amount: amount,
      order_currency: "INR",
      is_captured: true,
      payment_group: "credit_card",
      payment_amount: amount,
      payment_time: new Date().toISOString(),
      payment_status: "PENDING",
      payment_message: "Transaction pending",
      payment_method: { card: { channel: "link", card_number: "XXXXXXXXXXXX1111", card_network: "visa", card_type: "credit_card", card_country: "IN" } },
    });
    return this.settle(orderId, outcome, { cfPaymentId, ...options });
  }

  /** The vendor's payment webhook for one payment of an order, as it stands. */
  paymentWebhook(orderId: string, cfPaymentId: string): Json {
    const order = this.orders.get(orderId)!;
    const payment = order.payments.find((p) => p.cf_payment_id === cfPaymentId)!;
    const type =
      payment.payment_status === "SUCCESS"
        ? "PAYMENT_SUCCESS_WEBHOOK"
        : payment.payment_status === "USER_DROPPED"
          ? "PAYMENT_USER_DROPPED_WEBHOOK"
          : "PAYMENT_FAILED_WEBHOOK";
    const customer = order.entity.customer_details as Json;
    const webhook = {
      data: {
        order: { order_id: orderId, order_amount: order.entity.order_amount, order_currency: "INR", order_tags: null },
        payment: {
          cf_payment_id: payment.cf_payment_id,
          payment_status: payment.payment_status,
          payment_amount: payment.payment_amount,
          payment_currency: payment.payment_currency ?? "INR",
          payment_message: payment.payment_message,
          payment_time: payment.payment_time,
          bank_reference: payment.bank_reference ?? null,
          auth_id: null,
          payment_method: payment.payment_method,
          payment_group: payment.payment_group,
        },
        customer_details: {
          customer_name: customer.customer_name ?? null,
          customer_id: customer.customer_id,
          customer_email: customer.customer_email ?? null,
          customer_phone: customer.customer_phone,
        },
        payment_gateway_details: {
          gateway_name: "CASHFREE",
          gateway_order_id: order.entity.cf_order_id,
          gateway_payment_id: payment.cf_payment_id,
          gateway_status_code: null,
          gateway_settlement: "CASHFREE",
        },
        payment_offers: null,
        ...(payment.error_details ? { error_details: payment.error_details } : {}),
      },
      event_time: new Date().toISOString(),
      type,
    };
    if (!this.schemas.paymentWebhook(webhook))
      this.problems.push(`payment webhook does not match the document: ${JSON.stringify(this.schemas.paymentWebhook.errors)}`);
    return webhook;
  }

  /** Ends a refund: SUCCESS, or CANCELLED (the vendor gave up). Returns the refund webhook. */
  settleRefund(refundId: string, outcome: "SUCCESS" | "CANCELLED"): Json {
    for (const order of this.orders.values()) {
      const refund = order.refunds.get(refundId);
      if (!refund) continue;
      refund.refund_status = outcome;
      refund.status_description = outcome === "SUCCESS" ? "Refund processed successfully" : "Refund cancelled by the bank";
      refund.processed_at = new Date().toISOString();
      return this.refundWebhook(refundId);
    }
    throw new Error(`no refund ${refundId}`);
  }

  refundWebhook(refundId: string): Json {
    for (const order of this.orders.values()) {
      const refund = order.refunds.get(refundId);
      if (!refund) continue;
      // The vendor's own example sends its numeric ids as numbers here.
      const webhook = {
        data: { refund: { ...refund, cf_refund_id: Number(refund.cf_refund_id), cf_payment_id: Number(refund.cf_payment_id) } },
        event_time: new Date().toISOString(),
        type: "REFUND_STATUS_WEBHOOK",
      };
      if (!this.schemas.refundWebhook(webhook))
        this.problems.push(`refund webhook does not match the document: ${JSON.stringify(this.schemas.refundWebhook.errors)}`);
      return webhook;
    }
    throw new Error(`no refund ${refundId}`);
  }

  /** The headers and raw body the vendor would send for a webhook. */
  signedWebhook(payload: unknown, options: SendOptions = {}): { rawBody: Buffer; headers: Record<string, string> } {
    const rawBody = options.rawBody ?? Buffer.from(vendorJson(payload));
    const timestamp = String(options.timestampMs ?? Date.now());
    const signature = options.signature ?? "right";
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-webhook-timestamp": timestamp,
      "x-webhook-version": "2025-01-01",
      "x-webhook-attempt": "1",
      "x-idempotency-key": crypto.createHash("sha256").update(rawBody).digest("base64"),
    };
    if (signature === "right") headers["x-webhook-signature"] = vendorSignature(rawBody, timestamp, this.options.clientSecret);
    else if (signature === "wrong") headers["x-webhook-signature"] = vendorSignature(rawBody, timestamp, `${this.options.clientSecret}-other`);
    else if (signature !== "missing") headers["x-webhook-signature"] = signature.value;
    return { rawBody, headers };
  }

  /** Delivers a webhook to `url` as the vendor does (a POST of the raw body), and gives Parakh's answer. */
  async sendWebhook(url: string, payload: unknown, options: SendOptions = {}): Promise<WebhookSent> {
    const { rawBody, headers } = this.signedWebhook(payload, options);
    const response = await fetch(url, { method: "POST", headers, body: new Uint8Array(rawBody), redirect: "manual", signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: await response.text(), rawBody, headers };
  }

  private takeFault(operation: PgOperation): Script | null {
    const script = this.scripts.find((s) => s.left > 0 && (s.operation === null || s.operation === operation));
    if (!script) return null;
    script.left -= 1;
    return script;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.pages && (await this.pages(req, res, Buffer.concat(chunks)))) return;
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    const pathName = url.pathname.replace(/^\/pg/, "");
    const found = route(req.method, pathName);
    if (!found) {
      this.problems.push(`${req.method} ${pathName}: no such operation in the document`);
      return this.send(res, 404, { message: "not found", code: "not_found", type: "invalid_request_error" });
    }
    const { endpoint } = found;
    const validators = this.schemas.endpoints.get(endpoint.operation)!;
    const params = { ...Object.fromEntries(url.searchParams), ...found.params };
    const body = requestBody(endpoint.method, pathName, Buffer.concat(chunks), req.headers, this.problems);
    this.requests.push({ method: endpoint.method, path: pathName, operation: endpoint.operation, params, body, headers: req.headers });
    for (const name of validators.headers.required) {
      if (!req.headers[name]) this.problems.push(`${endpoint.operation}: request without ${name}`);
    }
    if (validators.headers.apiVersion && req.headers["x-api-version"] !== validators.headers.apiVersion) {
      this.problems.push(`${endpoint.operation}: x-api-version ${String(req.headers["x-api-version"])}, the document names ${validators.headers.apiVersion}`);
    }
    if (!validators.request(body))
      this.problems.push(`${endpoint.operation}: request does not match the document: ${JSON.stringify(validators.request.errors)}`);
    if (!validators.parameters(params))
      this.problems.push(`${endpoint.operation}: parameters do not match the document: ${JSON.stringify(validators.parameters.errors)}`);

    const check = (status: number, answer: unknown) => {
      const validate = validators.answers.get(status);
      if (!validate) this.problems.push(`${endpoint.operation}: the fake answered ${status}, which the document does not list`);
      else if (!validate(answer))
        this.problems.push(`${endpoint.operation}: the fake's ${status} answer does not match the document: ${JSON.stringify(validate.errors)}`);
    };

    const script = this.takeFault(endpoint.operation);
    const needsCredentials = validators.headers.required.includes("x-client-secret");
    if (
      script?.fault === "401" ||
      (needsCredentials && (req.headers["x-client-id"] !== this.options.clientId || req.headers["x-client-secret"] !== this.options.clientSecret))
    ) {
      const answer = { message: "authentication Failed", code: "request_failed", type: "authentication_error" };
      check(401, answer);
      return this.send(res, 401, answer);
    }
    if (script?.fault === "huge-body") {
      const [status, answer] = this.answer(endpoint.operation, params, body);
      check(status, answer);
      return this.sendPadded(res, status, answer);
    }
    if (script && !script.afterEffect) return this.fault(res, script, check);
    const [status, answer] = this.answer(endpoint.operation, params, body);
    if (script) return this.fault(res, script, check);
    check(status, answer);
    this.send(res, status, answer);
  }

  private fault(res: http.ServerResponse, script: Script, check: (status: number, answer: unknown) => void): void {
    // An error answer the vendor's document describes for the operation: checked against it, then sent.
    const documented = (status: number, answer: unknown, retryAfter?: string) => {
      check(status, answer);
      this.send(res, status, answer, retryAfter);
    };
    switch (script.fault) {
      case "500":
        return documented(500, { message: "something went wrong", code: "internal_error", type: "api_error" });
      case "429":
        return documented(429, { message: "Too many requests", code: "request_limit_exceeded", type: "rate_limit_error" }, script.retryAfter);
      case "503":
        return this.send(res, 503, { message: "service unavailable", code: "service_unavailable", type: "api_error" });
      case "403":
        return this.send(res, 403, { message: "IP not whitelisted", code: "request_failed", type: "authentication_error" });
      case "hang":
        return;
      case "reset":
        res.socket?.destroy();
        return;
      case "malformed-json":
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"order_status": "ACTIVE", "order_id": ');
        return;
      case "400":
        return documented(400, { message: "bad URL, please check API documentation", code: "request_failed", type: "invalid_request_error" });
      case "expiry-refused":
        return documented(400, { message: "order_expiry_time : invalid value provided", code: "order_expiry_time_invalid", type: "invalid_request_error" });
      case "401":
        return;
    }
  }

  private send(res: http.ServerResponse, status: number, body: unknown, retryAfter?: string): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      "x-api-version": "2022-09-01",
      ...(retryAfter ? { "retry-after": retryAfter } : {}),
    });
    res.end(text);
  }

  /** A valid answer made long by whitespace after its JSON (which a JSON reader skips): just over 1 MiB. */
  private sendPadded(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "content-type": "application/json", "x-api-version": "2022-09-01" });
    res.write(JSON.stringify(body));
    const filler = " ".repeat(64 * 1024);
    for (let i = 0; i < 17; i++) res.write(filler);
    res.end();
  }

  private error(status: number, code: string, message: string): [number, Json] {
    return [status, { message, code, type: "invalid_request_error" }];
  }

  private answer(operation: PgOperation, params: Record<string, string>, body: Json): [number, Json | Json[]] {
    const order = params.order_id ? this.orders.get(params.order_id) : undefined;
    switch (operation) {
      case "PGCreateOrder": {
        const orderId = String(body.order_id);
        if (this.orders.has(orderId)) return this.error(409, "order_already_exists", "order with same id is already present");
        const sessionId = `session_${crypto.randomBytes(24).toString("base64url")}`;
        const entity = {
          cf_order_id: String(this.nextId++),
          order_id: orderId,
          entity: "order",
          order_currency: body.order_currency,
          order_amount: body.order_amount,
          order_status: "ACTIVE",
          payment_session_id: sessionId,
          order_expiry_time: body.order_expiry_time,
          order_note: body.order_note ?? null,
          created_at: new Date().toISOString(),
          order_splits: [],
          customer_details: body.customer_details,
          order_meta: { return_url: body.order_meta?.return_url ?? null, notify_url: body.order_meta?.notify_url ?? null, payment_methods: null },
          order_tags: null,
        };
        this.orders.set(orderId, { entity, payments: [], refunds: new Map() });
        this.sessions.set(sessionId, orderId);
        return [200, entity];
      }
      case "PGFetchOrder":
        return order ? [200, order.entity] : this.error(404, "order_not_found", "order not found");
      case "PGTerminateOrder": {
        if (!order) return this.error(404, "order_not_found", "order not found");
        if (body.order_status !== "TERMINATED") return this.error(400, "order_status_invalid", "order_status : invalid value provided");
        if (order.entity.order_status !== "ACTIVE")
          return this.error(400, "order_terminate_failed", `order is ${String(order.entity.order_status)} and cannot be terminated`);
        order.entity.order_status = "TERMINATED";
        return [200, order.entity];
      }
      case "PGPayOrder": {
        const orderId = this.sessions.get(String(body.payment_session_id));
        const target = orderId ? this.orders.get(orderId) : undefined;
        if (!target) return this.error(400, "payment_session_id_invalid", "payment_session_id is not valid");
        if (target.entity.order_status !== "ACTIVE") return this.error(400, "order_inactive", `order is ${String(target.entity.order_status)}`);
        const method = body.payment_method as Json;
        const cfPaymentId = String(this.nextId++);
        const amount = target.entity.order_amount as number;
        const upi = method.upi as Json | undefined;
        if (upi?.channel === "collect" && (typeof upi.upi_id !== "string" || upi.upi_id.endsWith(INVALID_UPI_SUFFIX))) {
          return this.error(400, "upi_id_invalid", "upi_id : invalid value provided");
        }
        const payment: Json = {
          cf_payment_id: cfPaymentId,
          order_id: orderId,
          entity: "payment",
          payment_currency: "INR",
          error_details: null,
          order_amount: amount,
          order_currency: "INR",
          is_captured: false,
          payment_group: upi ? "upi" : "net_banking",
          payment_amount: amount,
          payment_time: new Date().toISOString(),
          payment_status: "PENDING",
          payment_message: "Transaction pending",
          payment_method: upi
            ? { upi: { channel: upi.channel, upi_id: upi.upi_id ?? null } }
            : { netbanking: { channel: "link", netbanking_bank_code: method.netbanking.netbanking_bank_code, netbanking_bank_name: null } },
        };
        target.payments.push(payment);
        const base = { payment_amount: amount, cf_payment_id: cfPaymentId, payment_method: upi ? "upi" : "netbanking" };
        const upiLink = `upi://pay?pa=cashfree@fakebank&pn=Parakh&tr=${cfPaymentId}&am=${amount.toFixed(2)}&cu=INR&mode=00`;
        if (upi?.channel === "collect")
          return [200, { ...base, channel: "collect", action: "custom", data: { url: null, payload: null, content_type: null, method: null } }];
        if (upi?.channel === "link") {
          return [
            200,
            {
              ...base,
              channel: "link",
              action: "custom",
              data: {
                url: null,
                payload: {
                  default: upiLink,
                  gpay: upiLink.replace("upi://", "tez://upi/"),
                  phonepe: upiLink.replace("upi://", "phonepe://"),
                  paytm: upiLink.replace("upi://", "paytmmp://"),
                  bhim: upiLink,
                },
                content_type: null,
                method: null,
              },
            },
          ];
        }
        if (upi?.channel === "qrcode") {
          const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
          return [
            200,
            {
              ...base,
              channel: "qrcode",
              action: "custom",
              data: { url: null, payload: { qrcode: `data:image/png;base64,${png}` }, content_type: null, method: null },
            },
          ];
        }
        return [
          200,
          {
            ...base,
            channel: "link",
            action: "link",
            data: { url: `${this.url}/view/redirecttobank/${cfPaymentId}`, payload: null, content_type: null, method: "get" },
          },
        ];
      }
      case "PGOrderFetchPayments":
        return order ? [200, order.payments] : this.error(404, "order_not_found", "order not found");
      case "PGOrderCreateRefund": {
        if (!order) return this.error(404, "order_not_found", "order not found");
        const refundId = String(body.refund_id);
        if (order.refunds.has(refundId)) return this.error(409, "refund_already_exists", "refund with same id is already present");
        const paid = order.payments.find((p) => p.payment_status === "SUCCESS");
        if (!paid) return this.error(400, "refund_invalid_request", "order is not paid");
        const taken = [...order.refunds.values()]
          .filter((r) => r.refund_status !== "CANCELLED")
          .reduce((sum, r) => sum + Math.round((r.refund_amount as number) * 100), 0);
        const asked = Math.round((body.refund_amount as number) * 100);
        if (asked <= 0 || taken + asked > Math.round((paid.payment_amount as number) * 100)) {
          return this.error(400, "refund_amount_invalid", "refund amount is greater than the refundable amount");
        }
        const refund = {
          cf_payment_id: paid.cf_payment_id,
          cf_refund_id: String(this.nextId++),
          refund_id: refundId,
          order_id: params.order_id,
          entity: "refund",
          refund_amount: body.refund_amount,
          refund_currency: "INR",
          refund_note: body.refund_note ?? null,
          refund_status: "PENDING",
          refund_type: "MERCHANT_INITIATED",
          refund_splits: [],
          status_description: "In Progress",
          refund_arn: null,
          metadata: null,
          created_at: new Date().toISOString(),
          processed_at: null,
          refund_charge: 0,
          refund_mode: "STANDARD",
        };
        order.refunds.set(refundId, refund);
        return [200, refund];
      }
      case "PGOrderFetchRefund": {
        const refund = order?.refunds.get(params.refund_id!);
        return refund ? [200, refund] : this.error(404, "refund_not_found", "refund not found");
      }
    }
  }
}

export async function startFakeCashfreePg(options: { clientId: string; clientSecret: string }): Promise<FakeCashfreePg> {
  return new FakeCashfreePg(options).start();
}
