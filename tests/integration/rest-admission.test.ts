import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withVerhoeffDigit } from "@/lib/aadhaar";
import type { Mode } from "@/lib/mode";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request, type HttpResult } from "../helpers/http";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

// Admission on every operation of the REST route table, read from the server's own OpenAPI
// document so a new route is covered without editing this file: over the per-key limit → 429, and
// from an address not on the whitelist → 403 IP_NOT_WHITELISTED (payment routes always; /v1 and
// KYC when the merchant enforces it everywhere). A refused call stores nothing.

// One folder of secrets for both servers and this process, which creates merchants and keys directly.
const secretsDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-admission-"));
process.env.DATA_DIR = secretsDir;
const { createMerchant, approveGoLive, setWhitelistEnforcement } = await import("@/server/services/merchants/merchants");
const { addWhitelistEntry } = await import("@/server/services/merchants/whitelist");
const { createApiKey } = await import("@/server/services/auth/api-keys");

/** The whitelisted merchants' own servers: loopback, but not 127.0.0.1. */
const ALLOWED_FROM = "127.0.0.2";
const MODES: Mode[] = ["sandbox", "live"];

interface Operation {
  method: string;
  path: string;
  /** Names of the security schemes the operation requires (all of them together). */
  security: string[];
  /** The payment family: its whitelist applies whatever the merchant's setting. */
  payments: boolean;
  example: unknown;
}

interface Key {
  merchantId: string;
  publicKey: string;
  secretKey: string;
}

interface Fixtures {
  merchantId: string;
  mode: Mode;
  /** A payment still open for attempts. */
  openPayment: string;
  /** A paid payment with money left to refund (sandbox; the open one in live). */
  paidPayment: string;
  refund: string;
  panBatch: string;
  epfoBatch: string;
  /** A fresh Aadhaar OTP request to verify (sandbox; an unknown one in live). */
  newOtp: () => Promise<{ requestId: string; aadhaarNumber: string }>;
}

interface Call {
  params?: Record<string, string>;
  body?: unknown;
}

let seq = 0;
const orderId = () => `ORDER_adm_${Date.now()}_${seq++}`;
/** A valid Aadhaar number not seen before (none of the sandbox's special 9991/9992/9998 endings). */
const aadhaarNumber = () => withVerhoeffDigit(`${randomInt(2, 10)}${String(randomInt(0, 1e9)).padStart(9, "0")}${randomInt(0, 9)}`);

/**
 * Calls that would succeed in the sandbox, so that a refusal is shown to have stored nothing that
 * the call would have. An operation without one here is still probed, with its documented example.
 */
const CALLS: Record<string, (fx: Fixtures) => Call | Promise<Call>> = {
  "POST /v1/identity/pan/verify": () => ({ body: { pan: "ABCPK1234F", name: "Arjun Kapoor" } }),
  "POST /v1/identity/pan/batch": () => ({ body: { items: [{ pan: "ABCPK1234F", reference_id: "a" }] } }),
  "GET /v1/identity/pan/batch/{batch_id}": (fx) => ({ params: { batch_id: fx.panBatch } }),
  "GET /v1/identity/pan/batch/{batch_id}/results": (fx) => ({ params: { batch_id: fx.panBatch } }),
  "POST /v1/employment/epfo/verify": () => ({ body: { uan: "100200300400" } }),
  "POST /v1/employment/epfo/batch": () => ({ body: { items: [{ uan: "100200300400" }] } }),
  "GET /v1/employment/epfo/batch/{batch_id}": (fx) => ({ params: { batch_id: fx.epfoBatch } }),
  "GET /v1/employment/epfo/batch/{batch_id}/results": (fx) => ({ params: { batch_id: fx.epfoBatch } }),
  "POST /api/checkout": () => ({ body: { orderId: orderId(), amount: 250 } }),
  "POST /api/payments/verify": (fx) => ({ body: { paymentId: fx.paidPayment } }),
  "GET /api/payments/{paymentId}/status": (fx) => ({ params: { paymentId: fx.paidPayment } }),
  "POST /api/payments/{paymentId}/refunds": (fx) => ({ params: { paymentId: fx.paidPayment }, body: { amount: "1.00", reason: "admission" } }),
  "GET /api/payments/{paymentId}/refunds": (fx) => ({ params: { paymentId: fx.paidPayment } }),
  "GET /api/refunds/{refundId}": (fx) => ({ params: { refundId: fx.refund } }),
  // FAILED attempts leave the payment payable, so every call of it would add one.
  "POST /api/sandbox/payments/{paymentId}/simulate": (fx) => ({ params: { paymentId: fx.openPayment }, body: { outcome: "FAILED" } }),
  "POST /api/kyc/aadhaar/generate-otp": (fx) => ({ body: { merchantId: fx.merchantId, aadhaarNumber: aadhaarNumber() } }),
  "POST /api/kyc/aadhaar/verify-otp": async (fx) => ({ body: { merchantId: fx.merchantId, otp: "123456", ...(await fx.newOtp()) } }),
  "POST /api/kyc/pan/verify": (fx) => ({ body: { merchantId: fx.merchantId, pan: "ABCPK1234F", name: "Arjun Kapoor" } }),
  "POST /api/kyc/bank/verify": (fx) => ({
    body: { merchantId: fx.merchantId, accountNumber: "50100123456789", ifsc: "HDFC0001234", name: "Annie Rose Thomas" },
  }),
};

afterAll(() => fs.rmSync(secretsDir, { recursive: true, force: true }));

describe.each(DB_TARGETS)("admission on every REST route on %s", (target) => {
  let env: Started;
  let db: Db;
  let operations: Operation[];
  let schemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }>;

  /** The credential headers of an operation, built from its security schemes as a client generator would. */
  function credentials(op: Operation, key: Key): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const name of op.security) {
      const s = schemes[name];
      if (s?.type === "http" && s.scheme === "bearer") headers.Authorization = `Bearer ${key.secretKey}`;
      else if (s?.type === "apiKey" && s.in === "header" && s.name === "x-merchant-id") headers[s.name] = key.merchantId;
      else if (s?.type === "apiKey" && s.in === "header" && s.name === "x-api-key") headers[s.name] = key.publicKey;
      else if (s?.type === "apiKey" && s.in === "header" && (s.name === "x-secret-key" || s.name === "x-api-secret")) headers[s.name] = key.secretKey;
      else throw new Error(`${op.method} ${op.path}: this test does not know the security scheme ${name}; teach credentials() its header`);
    }
    return headers;
  }

  function send(op: Operation, call: Call, key: Key, from?: string): Promise<HttpResult> {
    const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.params?.[name] ?? "unknown"));
    const post = op.method === "POST";
    return request(env.server.url, url, {
      method: op.method,
      body: post ? (call.body ?? {}) : undefined,
      headers: { ...credentials(op, key), ...(post ? { "Idempotency-Key": `adm-${seq++}` } : {}) },
      localAddress: from,
    });
  }

  const opNamed = (method: string, p: string) => operations.find((o) => o.method === method && o.path === p)!;

  async function callFor(op: Operation, fx: Fixtures): Promise<Call> {
    const make = CALLS[`${op.method} ${op.path}`];
    if (make) return make(fx);
    // An operation this file does not know yet: its documented example, as this merchant.
    const example = op.example && typeof op.example === "object" ? { ...op.example } : undefined;
    if (example && "merchantId" in example) example.merchantId = fx.merchantId;
    return { body: example };
  }

  /** A key of its own for each use: the limit is per key, so each operation starts with a full bucket. */
  async function freshKey(merchantId: string, mode: Mode): Promise<Key> {
    const k = await createApiKey(db, merchantId, mode, "admission test");
    return { merchantId, publicKey: k.publicKey, secretKey: k.secretKey };
  }

  async function merchant(name: string, whitelist: string[], enforceAll: boolean) {
    const m = await createMerchant(db, { name, email: `${name.toLowerCase().replace(/\W/g, "")}-${target}@example.com`, password: "a-long-password" });
    await approveGoLive(db, m.merchantId);
    for (const ip of whitelist) await addWhitelistEntry(db, m.merchantId, ip);
    if (enforceAll) await setWhitelistEnforcement(db, m.merchantId, true);
    return m.merchantId;
  }

  /** What the merchant's calls would leave behind in one mode (not the audit log, which records refusals too). */
  async function stored(merchantId: string, mode: Mode) {
    const mine = { merchantId, mode };
    const [payments, attempts, refunds, otpRequests, kycTransactions, idempotency, verifications, batches, holds, ledger, wallet] = await Promise.all([
      db.payment.count({ where: mine }),
      db.paymentAttempt.count({ where: { payment: mine } }),
      db.refund.count({ where: mine }),
      db.kycOtpRequest.count({ where: mine }),
      db.kycTransaction.count({ where: mine }),
      db.idempotencyRecord.count({ where: mine }),
      // A batch's own verification rows arrive in the background as it runs.
      db.verification.count({ where: { ...mine, batchId: null } }),
      db.batch.count({ where: mine }),
      db.walletHold.count({ where: mine }),
      db.ledgerEntry.count({ where: mine }),
      db.wallet.findUnique({ where: { merchantId_mode: mine }, select: { balancePaise: true, availablePaise: true } }),
    ]);
    return { payments, attempts, refunds, otpRequests, kycTransactions, idempotency, verifications, batches, holds, ledger, wallet };
  }

  /** Payments, refunds, batches and OTP requests of a merchant, made through the API from an allowed address. */
  async function fixtures(merchantId: string, mode: Mode, from?: string): Promise<Fixtures> {
    const call = async (method: string, p: string, c: Call, ok = true) => {
      const r = await send(opNamed(method, p), c, await freshKey(merchantId, mode), from);
      if (ok) expect(r.status, `${method} ${p}: ${r.text}`).toBeLessThan(300);
      return r;
    };
    const checkout = async () => (await call("POST", "/api/checkout", { body: { orderId: orderId(), amount: 250 } })).json.data.paymentId as string;
    // Live checks carry the person's consent and its purpose (C6); sandbox needs neither.
    const consent = mode === "live" ? { consent: true, purpose: "Seller onboarding: identity check before payouts" } : {};
    const batch = async (p: string, items: unknown[]) => (await call("POST", p, { body: { items, ...consent } })).json.data.batch_id as string;
    const panBatch = await batch("/v1/identity/pan/batch", [{ pan: "ABCPK1234F" }]);
    const epfoBatch = await batch("/v1/employment/epfo/batch", [{ uan: "100200300400" }]);
    if (mode === "live") {
      // Live has no payment processor, simulator or sources configured: unknown ids where nothing can be made.
      const newOtp = async () => ({ requestId: "kyc_req_unknown", aadhaarNumber: aadhaarNumber() });
      const payment = "pay_1700000000000_unknown";
      return { merchantId, mode, openPayment: payment, paidPayment: payment, refund: "rfnd_unknown", panBatch, epfoBatch, newOtp };
    }
    const openPayment = await checkout();
    const paidPayment = await checkout();
    await call("POST", "/api/sandbox/payments/{paymentId}/simulate", { params: { paymentId: paidPayment }, body: { outcome: "SUCCESS" } });
    const refund = (await call("POST", "/api/payments/{paymentId}/refunds", { params: { paymentId: paidPayment }, body: { amount: "1.00" } })).json.data
      .refundId as string;
    const newOtp = async () => {
      const n = aadhaarNumber();
      const r = await call("POST", "/api/kyc/aadhaar/generate-otp", { body: { merchantId, aadhaarNumber: n } });
      return { requestId: r.json.data.requestId as string, aadhaarNumber: n };
    };
    return { merchantId, mode, openPayment, paidPayment, refund, panBatch, epfoBatch, newOtp };
  }

  const knownSandboxCall = (op: Operation, fx: Fixtures) => fx.mode === "sandbox" && CALLS[`${op.method} ${op.path}`] !== undefined;

  /** What an admitted call answers: a success in the sandbox when this file knows the call, else anything but a refusal at the door. */
  function expectAdmitted(op: Operation, fx: Fixtures, r: HttpResult) {
    const what = `${fx.mode} ${op.method} ${op.path}: ${r.status} ${r.text.slice(0, 300)}`;
    if (knownSandboxCall(op, fx)) expect(r.status, what).toBeLessThan(300);
    else expect([401, 403, 429], what).not.toContain(r.status);
  }

  beforeAll(async () => {
    env = await startFor(target, { RATE_LIMIT_PER_SECOND: "1", DATA_DIR: secretsDir });
    db = createPrismaClient(env.server.databaseUrl);
    const doc = (await request(env.server.url, "/api/openapi.json")).json;
    schemes = doc.components.securitySchemes;
    operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
      Object.entries(item)
        .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map(([method, op]) => {
          const security = Object.keys(op.security?.[0] ?? {});
          return {
            method: method.toUpperCase(),
            path: p,
            security,
            payments: security.includes("MerchantId"),
            example: op.requestBody?.content?.["application/json"]?.example,
          };
        }),
    );
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it("reads every operation of the route table, each with credentials", async () => {
    const { REST_OPERATIONS } = await import("@/server/api/rest-router");
    const names = (list: { method: string; path: string }[]) => list.map((o) => `${o.method} ${o.path}`).sort();
    expect(names(operations)).toEqual(names(REST_OPERATIONS.map((o) => o.meta.openapi)));
    for (const known of Object.keys(CALLS)) expect(operations.map((o) => `${o.method} ${o.path}`)).toContain(known);
    for (const op of operations) expect(op.security.length, `${op.method} ${op.path}`).toBeGreaterThan(0);
    // Every credential type is among them: bearer secret, merchant headers, KYC key pair.
    expect(new Set(operations.map((o) => o.security.join("+"))).size).toBeGreaterThanOrEqual(3);
  });

  it("answers 429 RATE_LIMITED with Retry-After on every operation for a key over its limit, storing nothing", async () => {
    const merchantId = await merchant("Rate Limited", ["127.0.0.1"], true);
    for (const mode of MODES) {
      const fx = await fixtures(merchantId, mode);
      for (const op of operations) {
        const key = await freshKey(merchantId, mode);
        // The first call takes the key's one token (limit 1 a second, burst 1).
        expectAdmitted(op, fx, await send(op, await callFor(op, fx), key));
        // The next is over the limit. A machine slow enough to refill the bucket in between gets
        // another round; a route without the limit never answers 429.
        let limited: HttpResult | undefined;
        for (let round = 0; round < 5 && !limited; round++) {
          const call = await callFor(op, fx);
          const before = await stored(merchantId, mode);
          const r = await send(op, call, key);
          if (r.status !== 429) continue;
          limited = r;
          expect(await stored(merchantId, mode), `${mode} ${op.method} ${op.path}`).toEqual(before);
        }
        expect(limited?.status, `${mode} ${op.method} ${op.path}`).toBe(429);
        expect(limited!.json.error.code).toBe("RATE_LIMITED");
        expect(Number(limited!.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it("answers 403 IP_NOT_WHITELISTED on every operation from an address off the whitelist when the merchant enforces it everywhere, storing nothing", async () => {
    const merchantId = await merchant("Whitelist Everywhere", ["203.0.113.7", ALLOWED_FROM], true);
    for (const mode of MODES) {
      const fx = await fixtures(merchantId, mode, ALLOWED_FROM);
      for (const op of operations) {
        const key = await freshKey(merchantId, mode);
        const call = await callFor(op, fx);
        const before = await stored(merchantId, mode);
        const r = await send(op, call, key);
        expect(`${r.status} ${r.json?.error?.code}`, `${mode} ${op.method} ${op.path}`).toBe("403 IP_NOT_WHITELISTED");
        expect(await stored(merchantId, mode), `${mode} ${op.method} ${op.path}`).toEqual(before);
        // The same call from the whitelisted address goes through, and stores what the refusal did not.
        expectAdmitted(op, fx, await send(op, call, key, ALLOWED_FROM));
        if (op.method === "POST" && knownSandboxCall(op, fx)) expect(await stored(merchantId, mode), `${op.method} ${op.path}`).not.toEqual(before);
      }
    }
  });

  it("answers 403 IP_NOT_WHITELISTED on every payment operation from an address off the whitelist even when the merchant does not enforce it elsewhere", async () => {
    const merchantId = await merchant("Whitelist Payments", ["203.0.113.7", ALLOWED_FROM], false);
    for (const mode of MODES) {
      const fx = await fixtures(merchantId, mode, ALLOWED_FROM);
      for (const op of operations) {
        const key = await freshKey(merchantId, mode);
        const call = await callFor(op, fx);
        const before = await stored(merchantId, mode);
        const r = await send(op, call, key);
        if (!op.payments) {
          // /v1 and KYC take calls from anywhere unless the merchant says otherwise.
          expectAdmitted(op, fx, r);
          continue;
        }
        expect(`${r.status} ${r.json?.error?.code}`, `${mode} ${op.method} ${op.path}`).toBe("403 IP_NOT_WHITELISTED");
        expect(await stored(merchantId, mode), `${mode} ${op.method} ${op.path}`).toEqual(before);
        expectAdmitted(op, fx, await send(op, call, key, ALLOWED_FROM));
      }
    }
  });
});
