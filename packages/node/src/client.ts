import { ApiPromise, PagedList } from "./api-promise.js";
import { send, type Call, type RequestOptions, type Settings } from "./http.js";
import { OPERATIONS, type OperationName } from "./operations.js";
import { verifyRedirect, type RedirectQuery } from "./redirects.js";
import { DEFAULT_MAX_RETRY_AFTER_MS } from "./retry.js";
import type { QueryParams, RequestBody, ResponseData } from "./types.js";
import { constructEvent } from "./webhooks.js";

export interface ParakhConfig {
  /** Where Parakh answers, e.g. `https://api.parakh.example` (no path). */
  baseUrl: string;
  /** Your secret key: `sk_test_…` (sandbox) or `sk_live_…` (live). The key picks the mode. */
  secretKey: string;
  /** The public key of the same pair (`pk_…`): needed for payments and KYC. */
  publicKey?: string;
  /** Your merchant id (`mer_…`): needed for payments and KYC. */
  merchantId?: string;
  /** Each try's deadline, body included. Default 30,000. */
  timeoutMs?: number;
  /** Retries after a connection error, a timeout, 429 RATE_LIMITED, 503 or 504. Default 2. */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the error is raised. Default 60,000. */
  maxRetryAfterMs?: number;
}

const KEY = /^(sk|pk)_(test|live)_[A-Za-z0-9]+$/;

function settingsFrom(config: ParakhConfig): Settings {
  if (!config || typeof config !== "object") throw new TypeError("new Parakh({ baseUrl, secretKey, publicKey, merchantId })");
  let url: URL | null = null;
  try {
    url = new URL(config.baseUrl);
  } catch {
    // refused below
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) throw new TypeError("baseUrl must be an http(s) URL, e.g. https://api.parakh.example");
  const sk = KEY.exec(config.secretKey ?? "");
  if (!sk || sk[1] !== "sk") throw new TypeError("secretKey must be a secret key: sk_test_… or sk_live_…");
  if (config.publicKey !== undefined) {
    const pk = KEY.exec(config.publicKey);
    if (!pk || pk[1] !== "pk" || pk[2] !== sk[2]) throw new TypeError(`publicKey must be the pk_${sk[2]}_… key of the same pair`);
  }
  if (config.merchantId !== undefined && !/^mer_[A-Za-z0-9]+$/.test(config.merchantId)) throw new TypeError("merchantId must be a mer_… id");
  const count = (v: number | undefined, fallback: number, name: string) => {
    if (v === undefined) return fallback;
    if (!Number.isInteger(v) || v < 0) throw new TypeError(`${name} must be a whole number ≥ 0`);
    return v;
  };
  return {
    baseUrl: url.origin + url.pathname.replace(/\/+$/, ""),
    secretKey: config.secretKey,
    publicKey: config.publicKey,
    merchantId: config.merchantId,
    timeoutMs: count(config.timeoutMs, 30_000, "timeoutMs") || 30_000,
    maxRetries: count(config.maxRetries, 2, "maxRetries"),
    maxRetryAfterMs: count(config.maxRetryAfterMs, DEFAULT_MAX_RETRY_AFTER_MS, "maxRetryAfterMs"),
  };
}

/**
 * Parakh's API, one client for all of it: each method sends its operation's credentials (bearer for
 * `/v1`, the three merchant headers for payments, the KYC headers and the body's `merchantId`), an
 * `Idempotency-Key` on every POST, and retries what is safe to retry.
 */
export class Parakh {
  /** `sandbox` for `sk_test_…` keys, `live` for `sk_live_…`. */
  readonly mode: "sandbox" | "live";
  readonly #settings: Settings;

  constructor(config: ParakhConfig) {
    this.#settings = settingsFrom(config);
    this.mode = config.secretKey.startsWith("sk_live_") ? "live" : "sandbox";
  }

  #call<N extends OperationName>(name: N, call: Omit<Call, "spec">, opts?: RequestOptions): ApiPromise<ResponseData<N>> {
    return new ApiPromise(send<ResponseData<N>>(this.#settings, { ...call, spec: OPERATIONS[name] }, opts));
  }

  #results<P extends { items: unknown[]; next_cursor: string | null }>(
    name: "pan.batches.results" | "epfo.batches.results",
    batchId: string,
    params: { cursor?: string; limit?: number; status?: string } = {},
    opts?: RequestOptions,
  ): PagedList<P["items"][number], P> {
    const fetchPage = (cursor: string | undefined) =>
      send<P>(this.#settings, { spec: OPERATIONS[name], pathParams: { batch_id: batchId }, query: { ...params, cursor } }, opts);
    return new PagedList(fetchPage, params.cursor);
  }

  /** PAN verification (`/v1/identity/pan`). */
  readonly pan = {
    verify: (body: RequestBody<"pan.verify">, opts?: RequestOptions) => this.#call("pan.verify", { body }, opts),
    batches: {
      create: (body: RequestBody<"pan.batches.create">, opts?: RequestOptions) => this.#call("pan.batches.create", { body }, opts),
      retrieve: (batchId: string, opts?: RequestOptions) => this.#call("pan.batches.retrieve", { pathParams: { batch_id: batchId } }, opts),
      /** Every result, page by page: `for await (const item of …)`; `{ status: "FAILED" }` lists only those. */
      results: (batchId: string, params?: QueryParams<"pan.batches.results">, opts?: RequestOptions) =>
        this.#results<ResponseData<"pan.batches.results">>("pan.batches.results", batchId, params, opts),
    },
  };

  /** EPFO member lookups (`/v1/employment/epfo`). */
  readonly epfo = {
    verify: (body: RequestBody<"epfo.verify">, opts?: RequestOptions) => this.#call("epfo.verify", { body }, opts),
    batches: {
      create: (body: RequestBody<"epfo.batches.create">, opts?: RequestOptions) => this.#call("epfo.batches.create", { body }, opts),
      retrieve: (batchId: string, opts?: RequestOptions) => this.#call("epfo.batches.retrieve", { pathParams: { batch_id: batchId } }, opts),
      results: (batchId: string, params?: QueryParams<"epfo.batches.results">, opts?: RequestOptions) =>
        this.#results<ResponseData<"epfo.batches.results">>("epfo.batches.results", batchId, params, opts),
    },
  };

  /** Hosted checkout (`POST /api/checkout`). */
  readonly checkout = {
    create: (body: RequestBody<"checkout.create">, opts?: RequestOptions) => this.#call("checkout.create", { body }, opts),
  };

  /** Payments and their refunds. */
  readonly payments = {
    /** The payment's status object (`GET /api/payments/{paymentId}/status`). */
    retrieve: (paymentId: string, opts?: RequestOptions) => this.#call("payments.retrieve", { pathParams: { paymentId } }, opts),
    verify: (body: RequestBody<"payments.verify">, opts?: RequestOptions) => this.#call("payments.verify", { body }, opts),
    refunds: {
      create: (paymentId: string, body: RequestBody<"payments.refunds.create"> = {}, opts?: RequestOptions) =>
        this.#call("payments.refunds.create", { pathParams: { paymentId }, body }, opts),
      list: (paymentId: string, opts?: RequestOptions) => this.#call("payments.refunds.list", { pathParams: { paymentId } }, opts),
      retrieve: (refundId: string, opts?: RequestOptions) => this.#call("payments.refunds.retrieve", { pathParams: { refundId } }, opts),
    },
  };

  /** Sandbox keys only: move a test payment as a customer would. */
  readonly sandbox = {
    payments: {
      simulate: (paymentId: string, body: RequestBody<"sandbox.payments.simulate">, opts?: RequestOptions) =>
        this.#call("sandbox.payments.simulate", { pathParams: { paymentId }, body }, opts),
    },
  };

  /** KYC, charged from the wallet of the key's mode; `merchantId` is added to every body. */
  readonly kyc = {
    aadhaar: {
      generateOtp: (body: RequestBody<"kyc.aadhaar.generateOtp">, opts?: RequestOptions) => this.#call("kyc.aadhaar.generateOtp", { body }, opts),
      verifyOtp: (body: RequestBody<"kyc.aadhaar.verifyOtp">, opts?: RequestOptions) => this.#call("kyc.aadhaar.verifyOtp", { body }, opts),
    },
    pan: (body: RequestBody<"kyc.pan">, opts?: RequestOptions) => this.#call("kyc.pan", { body }, opts),
    bank: (body: RequestBody<"kyc.bank">, opts?: RequestOptions) => this.#call("kyc.bank", { body }, opts),
  };

  /** Verifying what Parakh sends you. */
  readonly webhooks = { constructEvent };

  readonly redirects = {
    verify: (query: RedirectQuery, secret: string | readonly string[]) => verifyRedirect(query, secret),
  };
}
