import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  IdempotencyError,
  InsufficientBalanceError,
  InvalidRequestError,
  NotFoundError,
  Parakh,
  ParakhError,
  PermissionError,
  RateLimitError,
  ServerError,
  SignatureVerificationError,
  UpstreamError,
  VERSION,
  constructEvent,
  verifyRedirect,
} from "../../packages/node/src/index";
import { errorFromAnswer } from "../../packages/node/src/errors";
import { authHeaders, callUrl, type Settings } from "../../packages/node/src/http";
import { OPERATIONS } from "../../packages/node/src/operations";
import { isRetryableAnswer, parseRetryAfter, retryDelayMs } from "../../packages/node/src/retry";

// The SDK's pure parts. Signatures are checked against values computed with openssl
// (`printf '%s' "$t.$body" | openssl dgst -sha256 -hmac "$secret"`), not by the code under test.
const BODY = '{"id":"evt_1","type":"payment.success","created_at":"2023-11-14T22:13:20.000Z","mode":"sandbox","data":{}}';
const T = 1700000000;
const SIG_NEW = "3cb426933c8949d74f4b3761906855d7ab7ae7a690949291fd3a3e4c98889e23"; // whsec_test_secret
const SIG_OLD = "b72a3edc55ee21a739cb1645c36a054446d44f712a8b2dfee5eb27d4f9516fcd"; // whsec_old_secret
const REDIRECT_SIG = "b69a9891d7af74daa86ed2270d109575d0b4a7b675666e0cab8c2d7a82e46d5c"; // ORDER_1|pay_1700000000000_abc|SUCCESS

const codeOf = (f: () => unknown) => {
  try {
    f();
    return "accepted";
  } catch (e) {
    expect(e).toBeInstanceOf(SignatureVerificationError);
    return (e as ParakhError).code;
  }
};

describe("constructEvent", () => {
  const at = { nowSec: T + 10 };
  it("accepts a published-format signature, from a string or bytes, with one or two v1 values", () => {
    expect(constructEvent(BODY, `t=${T},v1=${SIG_NEW}`, "whsec_test_secret", at)).toMatchObject({ id: "evt_1", type: "payment.success" });
    expect(constructEvent(new TextEncoder().encode(BODY), `t=${T},v1=${SIG_NEW}`, "whsec_test_secret", at).id).toBe("evt_1");
    const rotated = `t=${T},v1=${SIG_NEW},v1=${SIG_OLD}`;
    expect(codeOf(() => constructEvent(BODY, rotated, "whsec_old_secret", at))).toBe("accepted");
    expect(codeOf(() => constructEvent(BODY, `t=${T},v1=${SIG_OLD}`, ["whsec_test_secret", "whsec_old_secret"], at))).toBe("accepted");
    expect(codeOf(() => constructEvent(BODY, [`t=${T}`, `v1=${SIG_NEW}`], "whsec_test_secret", at))).toBe("accepted");
  });

  it("refuses a tampered body, a wrong secret, a stale or future timestamp, and a malformed or missing header", () => {
    expect(codeOf(() => constructEvent(BODY.replace("evt_1", "evt_2"), `t=${T},v1=${SIG_NEW}`, "whsec_test_secret", at))).toBe("WEBHOOK_SIGNATURE_INVALID");
    expect(codeOf(() => constructEvent(BODY, `t=${T + 1},v1=${SIG_NEW}`, "whsec_test_secret", at))).toBe("WEBHOOK_SIGNATURE_INVALID");
    expect(codeOf(() => constructEvent(BODY, `t=${T},v1=${SIG_NEW}`, "whsec_other", at))).toBe("WEBHOOK_SIGNATURE_INVALID");
    expect(codeOf(() => constructEvent(BODY, `t=${T},v1=${SIG_NEW}`, "whsec_test_secret", { nowSec: T + 301 }))).toBe("WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE");
    expect(codeOf(() => constructEvent(BODY, `t=${T},v1=${SIG_NEW}`, "whsec_test_secret", { nowSec: T - 301 }))).toBe("WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE");
    expect(codeOf(() => constructEvent(BODY, `t=${T},v1=${SIG_NEW}`, "whsec_test_secret", { nowSec: T + 301, toleranceSec: 400 }))).toBe("accepted");
    expect(codeOf(() => constructEvent(BODY, `v1=${SIG_NEW}`, "whsec_test_secret", at))).toBe("WEBHOOK_SIGNATURE_MALFORMED");
    expect(codeOf(() => constructEvent(BODY, `t=${T}`, "whsec_test_secret", at))).toBe("WEBHOOK_SIGNATURE_MALFORMED");
    expect(codeOf(() => constructEvent(BODY, "", "whsec_test_secret", at))).toBe("WEBHOOK_SIGNATURE_MISSING");
    expect(() => constructEvent(JSON.parse(BODY), `t=${T},v1=${SIG_NEW}`, "whsec_test_secret", at)).toThrow(/raw request body/);
    expect(() => constructEvent(BODY, `t=${T},v1=${SIG_NEW}`, [], at)).toThrow(TypeError);
  });
});

describe("verifyRedirect", () => {
  const query = { paymentId: "pay_1700000000000_abc", orderId: "ORDER_1", status: "SUCCESS", signature: REDIRECT_SIG };
  it("accepts the contract's signature from an object, a URL, URLSearchParams or either of two secrets", () => {
    expect(verifyRedirect(query, "whsec_test_secret")).toEqual({ paymentId: "pay_1700000000000_abc", orderId: "ORDER_1", status: "SUCCESS" });
    const url = `https://shop.example/return?cart=7&${new URLSearchParams(query)}`;
    expect(verifyRedirect(url, "whsec_test_secret").orderId).toBe("ORDER_1");
    expect(verifyRedirect(new URL(url).searchParams, ["whsec_old", "whsec_test_secret"]).status).toBe("SUCCESS");
    expect(verifyRedirect({ ...query, signature: REDIRECT_SIG.toUpperCase() }, "whsec_test_secret").status).toBe("SUCCESS");
  });
  it("refuses an edited value, a wrong secret or a missing field", () => {
    expect(codeOf(() => verifyRedirect({ ...query, status: "FAILED" }, "whsec_test_secret"))).toBe("REDIRECT_SIGNATURE_INVALID");
    expect(codeOf(() => verifyRedirect({ ...query, orderId: "ORDER_2" }, "whsec_test_secret"))).toBe("REDIRECT_SIGNATURE_INVALID");
    expect(codeOf(() => verifyRedirect(query, "whsec_other"))).toBe("REDIRECT_SIGNATURE_INVALID");
    expect(codeOf(() => verifyRedirect({ ...query, signature: undefined }, "whsec_test_secret"))).toBe("REDIRECT_SIGNATURE_MISSING");
  });
});

describe("retries", () => {
  it("retries 503, 504, 429 RATE_LIMITED and 409 IDEMPOTENCY_KEY_IN_USE only", () => {
    expect(isRetryableAnswer(503, "SOURCE_UNAVAILABLE")).toBe(true);
    expect(isRetryableAnswer(504, "SOURCE_TIMEOUT")).toBe(true);
    expect(isRetryableAnswer(429, "RATE_LIMITED")).toBe(true);
    expect(isRetryableAnswer(409, "IDEMPOTENCY_KEY_IN_USE")).toBe(true);
    for (const [status, code] of [
      [429, "OTP_RESEND_TOO_SOON"],
      [429, "OTP_GENERATION_LIMIT"],
      [429, "OTP_ATTEMPTS_EXCEEDED"],
      [409, "DUPLICATE_ORDER_ID"],
      [400, "INVALID_PAN"],
      [401, "UNAUTHORIZED"],
      [500, "INTERNAL_ERROR"],
      [502, "UPSTREAM_ERROR"],
    ] as const) {
      expect(isRetryableAnswer(status, code), `${status} ${code}`).toBe(false);
    }
  });
  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("5")).toBe(5000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
  it("backs off exponentially with jitter between half and all of each step, capped, never under Retry-After, and gives up past the cap", () => {
    expect(retryDelayMs(0, undefined, 60_000, () => 0)).toBe(250);
    expect(retryDelayMs(0, undefined, 60_000, () => 1)).toBe(500);
    expect(retryDelayMs(1, undefined, 60_000, () => 1)).toBe(1000);
    expect(retryDelayMs(2, undefined, 60_000, () => 1)).toBe(2000);
    expect(retryDelayMs(10, undefined, 60_000, () => 1)).toBe(8000);
    expect(retryDelayMs(0, 3000, 60_000, () => 1)).toBe(3000);
    expect(retryDelayMs(5, 3000, 60_000, () => 1)).toBe(8000);
    expect(retryDelayMs(0, 61_000, 60_000)).toBeNull();
  });
});

describe("errors", () => {
  const v1 = (code: string, extra = {}) => ({ status: "error", error: { code, message: "m", ...extra }, request_id: "req_v1", timestamp: "t" });
  const api = (code: string, extra = {}) => ({ success: false, error: { code, message: "m", ...extra }, requestId: "req_api" });
  it.each([
    [401, "UNAUTHORIZED", AuthenticationError],
    [403, "IP_NOT_WHITELISTED", PermissionError],
    [400, "INVALID_PAN", InvalidRequestError],
    [410, "OTP_EXPIRED", InvalidRequestError],
    [422, "INVALID_OTP", InvalidRequestError],
    [404, "BATCH_NOT_FOUND", NotFoundError],
    [409, "ORDER_ALREADY_PAID", ConflictError],
    [409, "IDEMPOTENCY_KEY_IN_USE", IdempotencyError],
    [422, "IDEMPOTENCY_KEY_MISMATCH", IdempotencyError],
    [429, "RATE_LIMITED", RateLimitError],
    [402, "INSUFFICIENT_BALANCE", InsufficientBalanceError],
    [502, "UPSTREAM_ERROR", UpstreamError],
    [503, "SERVICE_UNAVAILABLE", UpstreamError],
    [504, "SOURCE_TIMEOUT", UpstreamError],
    [500, "INTERNAL_ERROR", ServerError],
  ] as const)("%i %s is a %s", (status, code, Class) => {
    const e = errorFromAnswer(status, api(code), "", null, undefined);
    expect(e).toBeInstanceOf(Class);
    expect(e).toBeInstanceOf(ParakhError);
    expect(e).toMatchObject({ code, status, requestId: "req_api", name: Class.name });
  });
  it("reads both envelopes, their details, field and extra fields", () => {
    const e = errorFromAnswer(422, api("INVALID_OTP", { attemptsRemaining: 1, field: "otp" }), "", "req_header", 3);
    expect(e).toMatchObject({ attemptsRemaining: 1, field: "otp", retryAfter: 3, extra: { attemptsRemaining: 1 }, requestId: "req_api" });
    const d = errorFromAnswer(400, v1("VALIDATION_ERROR", { details: [{ field: "pan", message: "Required" }] }), "", null, undefined);
    expect(d).toMatchObject({ requestId: "req_v1", details: [{ field: "pan", message: "Required" }] });
    expect(errorFromAnswer(502, undefined, "<html>", "req_h", undefined)).toMatchObject({ code: "UNEXPECTED_RESPONSE", requestId: "req_h", raw: "<html>" });
  });
});

describe("the client", () => {
  const settings: Settings = {
    baseUrl: "https://api.example/base",
    merchantId: "mer_1",
    publicKey: "pk_test_1",
    secretKey: "sk_test_1",
    timeoutMs: 1000,
    maxRetries: 2,
    maxRetryAfterMs: 1000,
  };
  it("sends each scheme's headers (contract B2)", () => {
    expect(authHeaders(settings, "bearer")).toEqual({ Authorization: "Bearer sk_test_1" });
    expect(authHeaders(settings, "merchant")).toEqual({ "x-merchant-id": "mer_1", "x-api-key": "pk_test_1", "x-secret-key": "sk_test_1" });
    expect(authHeaders(settings, "kyc")).toEqual({ "x-api-key": "pk_test_1", "x-api-secret": "sk_test_1" });
    expect(() => authHeaders({ ...settings, publicKey: undefined }, "merchant")).toThrow(/publicKey is needed/);
  });
  it("encodes path parameters and leaves out undefined query values", () => {
    const spec = OPERATIONS["pan.batches.results"];
    expect(callUrl(settings.baseUrl, { spec, pathParams: { batch_id: "b/1 ?" }, query: { limit: 5, cursor: undefined } })).toBe(
      "https://api.example/base/v1/identity/pan/batch/b%2F1%20%3F/results?limit=5",
    );
    expect(() => callUrl(settings.baseUrl, { spec, pathParams: { batch_id: "" } })).toThrow(TypeError);
  });
  it("checks its configuration and takes its mode from the key", () => {
    expect(new Parakh({ baseUrl: "http://localhost:3000", secretKey: "sk_live_abc" }).mode).toBe("live");
    expect(new Parakh({ baseUrl: "http://localhost:3000", secretKey: "sk_test_abc" }).mode).toBe("sandbox");
    expect(() => new Parakh({ baseUrl: "localhost", secretKey: "sk_test_abc" })).toThrow(/baseUrl/);
    expect(() => new Parakh({ baseUrl: "http://x", secretKey: "pk_test_abc" })).toThrow(/secretKey/);
    expect(() => new Parakh({ baseUrl: "http://x", secretKey: "sk_test_abc", publicKey: "pk_live_abc" })).toThrow(/publicKey/);
    expect(() => new Parakh({ baseUrl: "http://x", secretKey: "sk_test_abc", maxRetries: -1 })).toThrow(/maxRetries/);
  });
  it("states the package's version", () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../packages/node/package.json"), "utf8"));
    expect(VERSION).toBe(pkg.version);
  });
});
