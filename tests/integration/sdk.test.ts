import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  IdempotencyError,
  InsufficientBalanceError,
  InvalidRequestError,
  NotFoundError,
  OPERATIONS,
  Parakh,
  ParakhError,
  PermissionError,
  RateLimitError,
  ServerError,
  SignatureVerificationError,
  TimeoutError,
  UpstreamError,
  type ParakhConfig,
  type PanBatchResultItem,
} from "../../packages/node/src/index";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";
import { waitFor } from "../helpers/wait";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

/**
 * The Node SDK (packages/node) against a real sandbox server: every method at least once on the answers
 * the documents promise, every error family from the server's own refusals, webhook verification on
 * deliveries the server really sent, and its operation table held to the served OpenAPI document.
 * Retries and timeouts run against loopback servers that misbehave on cue, one of them in front of the
 * real server so that a retried charge can be counted.
 */
describe("the Node SDK against a sandbox server", () => {
  let server: TestServer;
  let db: Db;
  let m: MerchantFixture;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let parakh: Parakh;
  let seq = 0;
  const client = (m2: MerchantFixture, extra: Partial<ParakhConfig> = {}) =>
    new Parakh({ baseUrl: server.url, merchantId: m2.merchantId, publicKey: m2.sandbox.publicKey, secretKey: m2.sandbox.secretKey, ...extra });
  const orderId = () => `ORDER_sdk_${Date.now()}_${seq++}`;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startServer({ env: { WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true", BATCH_RETRY_BUDGET_MS: "1500" } });
    db = createPrismaClient(server.databaseUrl);
    m = await createMerchantViaCli(server.env);
    expect((await cli(server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    parakh = client(m);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await server?.stop();
    receiver?.close();
  });

  it("has a method for every operation of the served OpenAPI document, with the document's auth scheme", async () => {
    const doc = (await request(server.url, "/api/openapi.json")).json;
    const scheme: Record<string, string> = { BearerSecretKey: "bearer", MerchantId: "merchant", KycApiKey: "kyc" };
    const documented = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${scheme[Object.keys(op.security[0])[0]!]}`),
    );
    const covered = Object.values(OPERATIONS).map((o) => `${o.method} ${o.path} ${o.auth}`);
    expect([...covered].sort()).toEqual([...documented].sort());
    // Each table entry is a method of the client, at the dotted name it is listed under.
    for (const name of Object.keys(OPERATIONS)) {
      const fn = name.split(".").reduce<any>((o, k) => o?.[k], parakh);
      expect(typeof fn, name).toBe("function");
    }
  });

  it("verifies PANs and EPFO accounts with the bearer key, the data unwrapped and the answer's metadata beside it", async () => {
    const { data, response } = await parakh.pan.verify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }).withResponse();
    // The README's answer (docs: "Verify a PAN").
    expect(data).toEqual({
      pan: "ABCPK1234F",
      name: "ARJUN KAPOOR",
      status: "VALID",
      category: "INDIVIDUAL",
      name_match: 100,
      aadhaar_linked: true,
      aadhaar_seeding_status: "LINKED",
      name_match_result: "MATCH",
      remarks: null,
    });
    expect(response.status).toBe(200);
    expect(response.requestId).toMatch(/^req_/);
    expect(response.idempotentReplayed).toBe(false);
    expect(response.timestamp).toMatch(/Z$/);
    expect((await parakh.pan.verify({ pan: "ABCPK9991F" })).status).toBe("INVALID");

    const epfo = await parakh.epfo.verify({ uan: "100200300400" });
    expect(epfo).toMatchObject({ uan: "100200300400", member_status: "ACTIVE" });
    expect((await parakh.epfo.verify({ pf_number: "MH/BAN/0000064/000/0000123" })).pf_number).toBe("MH/BAN/0000064/000/0000123");
  });

  it("a caller's Idempotency-Key replays the stored answer, and the replay is flagged", async () => {
    const first = await parakh.pan.verify({ pan: "ABCPK1235F" }, { idempotencyKey: `sdk-replay-${seq++}`, requestId: "sdk_probe_1" }).withResponse();
    expect(first.response.requestId).toBe("sdk_probe_1");
    const again = await parakh.pan.verify({ pan: "ABCPK1235F" }, { idempotencyKey: first.response.idempotencyKey! }).withResponse();
    expect(again.response.idempotentReplayed).toBe(true);
    expect(again.data).toEqual(first.data);
  });

  async function completed(kind: "pan" | "epfo", batchId: string) {
    return waitFor(
      `${kind} batch ${batchId}`,
      async () => {
        const status = await parakh[kind].batches.retrieve(batchId);
        return status.status === "COMPLETED" ? status : null;
      },
      30_000,
    );
  }

  it("creates PAN and EPFO batches, reads their progress and walks every page of their results, filtered by status", async () => {
    const created = await parakh.pan.batches.create({
      items: [{ pan: "ABCPK1234F", reference_id: "a" }, { pan: "NOTAPAN", reference_id: "b" }, { pan: "ABCPK9991F" }, { pan: "ABCPK9998F" }],
    });
    expect(created).toMatchObject({ status: "QUEUED", total: 4, accepted: 3, rejected: 1 });
    const done = await completed("pan", created.batch_id);
    expect(done).toMatchObject({ total: 4, processed: 4 });

    // limit 1: four pages, one item each, in index order.
    const all: PanBatchResultItem[] = [];
    for await (const item of parakh.pan.batches.results(created.batch_id, { limit: 1 })) all.push(item);
    expect(all.map((i) => i.index)).toEqual([0, 1, 2, 3]);
    expect(all[1]).toMatchObject({ reference_id: "b", result: null, error: { code: "INVALID_PAN" } });
    let pages = 0;
    for await (const page of parakh.pan.batches.results(created.batch_id, { limit: 1 }).pages()) {
      pages++;
      expect(page.response.status).toBe(200);
    }
    expect(pages).toBe(4);
    const failed: number[] = [];
    for await (const item of parakh.pan.batches.results(created.batch_id, { status: "FAILED" })) failed.push(item.index);
    expect(failed).toEqual(all.filter((i) => i.status === "FAILED").map((i) => i.index));
    expect(failed).toContain(1);
    // Awaited, the first page itself.
    const first = await parakh.pan.batches.results(created.batch_id, { limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));

    const epfo = await parakh.epfo.batches.create({ items: [{ uan: "100200300401" }, { uan: "100200309991" }, { uan: "12" }] });
    expect(epfo).toMatchObject({ total: 3, accepted: 2, rejected: 1 });
    await completed("epfo", epfo.batch_id);
    const codes: (string | null)[] = [];
    for await (const item of parakh.epfo.batches.results(epfo.batch_id)) codes.push(item.error?.code ?? null);
    expect(codes).toEqual([null, "UAN_NOT_FOUND", "INVALID_UAN"]);
  });

  it("takes a payment through checkout, simulation, status and verify, then refunds it", async () => {
    const id = orderId();
    const created = await parakh.checkout.create({ orderId: id, amount: "499", redirectUrl: "https://shop.example/return" });
    expect(created).toMatchObject({ merchantOrderId: id, amount: "499.00", currency: "INR" });
    expect(created.checkoutUrl).toMatch(new RegExp(`/checkout/${created.paymentId}$`));

    const simulated = await parakh.sandbox.payments.simulate(created.paymentId, { outcome: "SUCCESS", method: "upi" });
    expect(simulated.payment.status).toBe("SUCCESS");
    expect(simulated.attemptId).toMatch(/^att_/);
    const status = await parakh.payments.retrieve(created.paymentId);
    expect(status).toMatchObject({ paymentId: created.paymentId, status: "SUCCESS", isFinal: true, amount: "499.00" });
    const verified = await parakh.payments.verify({ paymentId: created.paymentId, orderId: id });
    expect(verified).toMatchObject({ verified: true, status: "SUCCESS" });

    const refund = await parakh.payments.refunds.create(created.paymentId, { amount: "100.00", merchantRefundId: `RF_${seq++}` });
    expect(refund).toMatchObject({ paymentId: created.paymentId, amount: "100.00", status: "PENDING" });
    expect((await parakh.payments.refunds.retrieve(refund.refundId)).refundId).toBe(refund.refundId);
    const rest = await parakh.payments.refunds.create(created.paymentId);
    expect(rest.amount).toBe("399.00");
    const list = await parakh.payments.refunds.list(created.paymentId);
    expect(list.items.map((r) => r.refundId).sort()).toEqual([refund.refundId, rest.refundId].sort());
  });

  it("runs Aadhaar OTP, PAN and bank KYC with the KYC headers and the merchantId it adds to each body", async () => {
    const otp = await parakh.kyc.aadhaar.generateOtp({ aadhaarNumber: "234567890009" }).withResponse();
    // The answer's own requestId (the OTP request) and the HTTP request id do not collide.
    expect(otp.data.requestId).toMatch(/^kyc_req_/);
    expect(otp.response.requestId).toMatch(/^req_/);
    expect(otp.response.message).toEqual(expect.any(String));
    const wrong = await parakh.kyc.aadhaar.verifyOtp({ aadhaarNumber: "234567890009", otp: "000000", requestId: otp.data.requestId }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(InvalidRequestError);
    expect(wrong).toMatchObject({ code: "INVALID_OTP", status: 422, attemptsRemaining: 2 });
    const kyc = await parakh.kyc.aadhaar.verifyOtp({ aadhaarNumber: "234567890009", otp: "123456", requestId: otp.data.requestId });
    expect(kyc).toMatchObject({ status: "VERIFIED", maskedAadhaar: "XXXXXXXX0009", charge: { amount: "3.00", currency: "INR" } });

    const pan = await parakh.kyc.pan({ pan: "ABCPK1234F", dob: "1990-01-01" });
    expect(pan).toMatchObject({ pan: "ABCPK1234F", status: "VALID", dobMatch: true, charge: { amount: "1.00" } });
    const bank = await parakh.kyc.bank({ accountNumber: "123456789012", ifsc: "HDFC0001234" });
    expect(bank).toMatchObject({ accountExists: true, accountStatus: "VALID", charge: { amount: "2.00" } });
    expect((await parakh.kyc.bank({ accountNumber: "123456780000", ifsc: "HDFC0001234" })).accountStatus).toBe("INVALID");
  });

  describe("raises each error family with the answer's code, status, message, request id and details", () => {
    const refusal = (p: PromiseLike<unknown>) =>
      Promise.resolve(p).then(
        () => expect.unreachable("answered 200"),
        (e: unknown) => e as ParakhError,
      );

    it("authentication, permission, invalid request, not found", async () => {
      const wrongKey = new Parakh({ baseUrl: server.url, secretKey: "sk_test_doesnotexist000000000000" });
      const auth = await refusal(wrongKey.pan.verify({ pan: "ABCPK1234F" }));
      expect(auth).toBeInstanceOf(AuthenticationError);
      expect(auth).toMatchObject({ code: "UNAUTHORIZED", status: 401, requestId: expect.stringMatching(/^req_/) });

      const stranger = await createMerchantViaCli(server.env, "Not Whitelisted");
      const ip = await refusal(client(stranger).checkout.create({ orderId: orderId(), amount: 10 }));
      expect(ip).toBeInstanceOf(PermissionError);
      expect(ip).toMatchObject({ code: "IP_NOT_WHITELISTED", status: 403 });
      // KYC with another merchant's id in the body: the key decides, the body's merchantId must agree.
      const mismatch = await refusal(client(m, { merchantId: stranger.merchantId }).kyc.pan({ pan: "ABCPK1234F" }));
      expect(mismatch).toMatchObject({ code: "MERCHANT_MISMATCH", status: 403 });

      const invalid = await refusal(parakh.pan.verify({ pan: "ABCPK0000F" }));
      expect(invalid).toBeInstanceOf(InvalidRequestError);
      expect(invalid).toMatchObject({ code: "INVALID_PAN", status: 400 });
      const fields = await refusal(parakh.checkout.create({ orderId: orderId(), amount: "10", meta: { email: "not an email" } }));
      expect(fields.details.map((d) => d.field)).toContain("meta.email");

      const missing = await refusal(parakh.payments.retrieve("pay_1_doesnotexist"));
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing).toMatchObject({ code: "PAYMENT_NOT_FOUND", status: 404 });
    });

    it("conflict, idempotency, rate limit, insufficient balance, upstream", async () => {
      const id = orderId();
      await parakh.checkout.create({ orderId: id, amount: "10.00" });
      const conflict = await refusal(parakh.checkout.create({ orderId: id, amount: "11.00" }));
      expect(conflict).toBeInstanceOf(ConflictError);
      expect(conflict).toMatchObject({ code: "DUPLICATE_ORDER_ID", status: 409 });

      const key = `sdk-mismatch-${seq++}`;
      await parakh.pan.verify({ pan: "ABCPK1236F" }, { idempotencyKey: key });
      const mismatch = await refusal(parakh.pan.verify({ pan: "ABCPK1237F" }, { idempotencyKey: key }));
      expect(mismatch).toBeInstanceOf(IdempotencyError);
      expect(mismatch).toMatchObject({ code: "IDEMPOTENCY_KEY_MISMATCH", status: 422 });

      await parakh.kyc.aadhaar.generateOtp({ aadhaarNumber: "999999990019" });
      const tooSoon = await refusal(parakh.kyc.aadhaar.generateOtp({ aadhaarNumber: "999999990019" }));
      expect(tooSoon).toBeInstanceOf(RateLimitError);
      expect(tooSoon).toMatchObject({ code: "OTP_RESEND_TOO_SOON", status: 429, retryAfter: expect.any(Number) });

      const poor = await createMerchantViaCli(server.env, "Empty Wallet");
      expect(
        (await cli(server.env, ["wallet", "debit", "--merchant", poor.merchantId, "--mode", "sandbox", "--amount", "10000", "--reason", "sdk test"])).code,
      ).toBe(0);
      const broke = await refusal(client(poor).kyc.pan({ pan: "ABCPK1234F" }));
      expect(broke).toBeInstanceOf(InsufficientBalanceError);
      expect(broke).toMatchObject({ code: "INSUFFICIENT_BALANCE", status: 402 });

      const upstream = await refusal(client(m, { maxRetries: 0 }).pan.verify({ pan: "ABCPK9998F" }));
      expect(upstream).toBeInstanceOf(UpstreamError);
      expect(upstream).toMatchObject({ code: "SOURCE_UNAVAILABLE", status: 503, retryAfter: expect.any(Number) });
      const timeout = await refusal(client(m, { maxRetries: 0 }).pan.verify({ pan: "ABCPK9997F" }));
      expect(timeout).toMatchObject({ code: "SOURCE_TIMEOUT", status: 504 });
      expect(timeout).toBeInstanceOf(UpstreamError);
    });
  });

  it("constructEvent verifies real deliveries (also across a secret rotation) and refuses tampered, stale or wrongly keyed ones", async () => {
    const batch = await parakh.pan.batches.create({ items: [{ pan: "ABCPK1234F" }], webhook_url: receiver.url });
    const delivery = await waitFor("the batch's webhook", () => receiver.received.find((r) => r.body.includes(batch.batch_id)), 20_000);
    const header = delivery.headers["x-webhook-signature"] as string;
    const event = parakh.webhooks.constructEvent(delivery.body, header, m.sandbox.signingSecret);
    expect(event.type).toBe("pan.batch.completed");
    if (event.type !== "pan.batch.completed") throw new Error("narrowing");
    expect(event.data.batch_id).toBe(batch.batch_id);
    expect(event.data.results_url).toContain(`/v1/identity/pan/batch/${batch.batch_id}/results`);
    // A Buffer body verifies the same.
    expect(parakh.webhooks.constructEvent(Buffer.from(delivery.body), header, m.sandbox.signingSecret).id).toBe(event.id);

    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(SignatureVerificationError);
        return (e as ParakhError).code;
      }
      return "accepted";
    };
    const tampered = delivery.body.replace(batch.batch_id, `${batch.batch_id}x`);
    expect(refused(() => parakh.webhooks.constructEvent(tampered, header, m.sandbox.signingSecret))).toBe("WEBHOOK_SIGNATURE_INVALID");
    expect(refused(() => parakh.webhooks.constructEvent(delivery.body, header, "whsec_wrong"))).toBe("WEBHOOK_SIGNATURE_INVALID");
    const signedAt = Number(/t=(\d+)/.exec(header)![1]);
    expect(refused(() => parakh.webhooks.constructEvent(delivery.body, header, m.sandbox.signingSecret, { nowSec: signedAt + 301 }))).toBe(
      "WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE",
    );
    expect(refused(() => parakh.webhooks.constructEvent(delivery.body, header, m.sandbox.signingSecret, { nowSec: signedAt + 300 }))).toBe("accepted");
    expect(refused(() => parakh.webhooks.constructEvent(delivery.body, header, m.sandbox.signingSecret, { toleranceSec: 10, nowSec: signedAt - 11 }))).toBe(
      "WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE",
    );
    expect(refused(() => parakh.webhooks.constructEvent(delivery.body, undefined, m.sandbox.signingSecret))).toBe("WEBHOOK_SIGNATURE_MISSING");

    // A rotation: the server signs with both secrets for a day; either one verifies, and so do both given together.
    process.env.DATA_DIR = server.dataDir;
    const { rotateSigningSecret } = await import("@/server/services/merchants/signing-secrets");
    const fresh = await rotateSigningSecret(db, m.merchantId, "sandbox");
    const second = await parakh.pan.batches.create({ items: [{ pan: "ABCPK1234F" }], webhook_url: receiver.url });
    const rotated = await waitFor("the second batch's webhook", () => receiver.received.find((r) => r.body.includes(second.batch_id)), 20_000);
    const twoSigned = rotated.headers["x-webhook-signature"] as string;
    expect(twoSigned.match(/v1=/g)).toHaveLength(2);
    for (const secrets of [m.sandbox.signingSecret, fresh, [fresh, m.sandbox.signingSecret]]) {
      expect(parakh.webhooks.constructEvent(rotated.body, twoSigned, secrets).type).toBe("pan.batch.completed");
    }
    expect(refused(() => parakh.webhooks.constructEvent(rotated.body, twoSigned, ["whsec_a", "whsec_b"]))).toBe("WEBHOOK_SIGNATURE_INVALID");
    m.sandbox.signingSecret = fresh;
  });

  it("redirects.verify accepts the redirect the server builds and refuses an edited one", async () => {
    const id = orderId();
    const created = await parakh.checkout.create({ orderId: id, amount: "25", redirectUrl: "https://shop.example/return?cart=7" });
    await parakh.sandbox.payments.simulate(created.paymentId, { outcome: "SUCCESS" });
    process.env.DATA_DIR = server.dataDir;
    const { redirectTarget } = await import("@/server/services/payments/lifecycle");
    const target = (await redirectTarget(db, created.paymentId))!;
    expect(target).toContain("signature=");
    expect(parakh.redirects.verify(target, m.sandbox.signingSecret)).toEqual({ paymentId: created.paymentId, orderId: id, status: "SUCCESS" });
    expect(parakh.redirects.verify(new URL(target).searchParams, [m.sandbox.signingSecret])).toMatchObject({ status: "SUCCESS" });
    const query = Object.fromEntries(new URL(target).searchParams);
    expect(parakh.redirects.verify(query, m.sandbox.signingSecret).paymentId).toBe(created.paymentId);
    expect(() => parakh.redirects.verify({ ...query, status: "FAILED" }, m.sandbox.signingSecret)).toThrow(SignatureVerificationError);
    expect(() => parakh.redirects.verify(query, "whsec_wrong")).toThrow(SignatureVerificationError);
    // The server's own check agrees with the SDK's.
    const server2 = await parakh.payments.verify({ paymentId: created.paymentId, orderId: id, status: "SUCCESS", signature: query.signature! });
    expect(server2.verified).toBe(true);
  });
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}
type Script = (req: Seen, res: http.ServerResponse) => void | Promise<void>;

/** A loopback server that answers request n with script[n] (the last one again after that) and records every request. */
async function scripted(script: Script[]) {
  const seen: Seen[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const r: Seen = { method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() };
      seen.push(r);
      void script[Math.min(seen.length, script.length) - 1]!(r, res);
    });
  });
  server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Script =>
  (_req, res) => {
    res.writeHead(status, { "Content-Type": "application/json", "X-Request-Id": `req_fake${status}`, ...headers });
    res.end(JSON.stringify(body));
  };
const apiError = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { success: false, error: { code, message: code }, requestId: `req_fake${status}` }, headers);
const fakeKeys = { merchantId: "mer_fake", publicKey: "pk_test_fake", secretKey: "sk_test_fake" };

describe("the Node SDK's retries and timeouts", () => {
  let server: TestServer;
  let m: MerchantFixture;
  const fakes: { close: () => void }[] = [];
  const fake = async (script: Script[]) => {
    const f = await scripted(script);
    fakes.push(f);
    return f;
  };
  const balance = async () => {
    const shown = await cli(server.env, ["wallet", "show", "--merchant", m.merchantId, "--mode", "sandbox", "--json"]);
    return Number(shown.json.wallets[0].balance);
  };

  beforeAll(async () => {
    server = await startServer();
    m = await createMerchantViaCli(server.env);
  });
  afterAll(async () => {
    for (const f of fakes) f.close();
    await server?.stop();
  });

  it("a KYC charge whose answer is lost (503 with Retry-After) is retried with the same Idempotency-Key and charged once", async () => {
    // In front of the real server: the first try reaches it (and is charged) but its answer is replaced by a 503.
    const forward = async (req: Seen) => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k))) as Record<
        string,
        string
      >;
      return fetch(server.url + req.url, { method: req.method, headers, body: req.body || undefined });
    };
    const proxy = await fake([
      async (req, res) => {
        await forward(req);
        apiError(503, "SERVICE_UNAVAILABLE", { "Retry-After": "1" })(req, res);
      },
      async (req, res) => {
        const answer = await forward(req);
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(await answer.text());
      },
    ]);
    const before = await balance();
    const parakh = new Parakh({ baseUrl: proxy.url, merchantId: m.merchantId, publicKey: m.sandbox.publicKey, secretKey: m.sandbox.secretKey });
    const { data, response } = await parakh.kyc.pan({ pan: "ABCPK1234F" }).withResponse();
    expect(proxy.seen).toHaveLength(2);
    const keys = proxy.seen.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toEqual(expect.any(String));
    expect(keys[1]).toBe(keys[0]);
    expect(proxy.seen[1]!.body).toBe(proxy.seen[0]!.body);
    expect(JSON.parse(proxy.seen[0]!.body)).toEqual({ pan: "ABCPK1234F", merchantId: m.merchantId });
    // The second try waited at least the Retry-After.
    expect(proxy.seen[1]!.at - proxy.seen[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(response).toMatchObject({ attempts: 2, status: 200, idempotentReplayed: true, idempotencyKey: keys[0] });
    expect(data.charge.amount).toBe("1.00");
    expect(await balance()).toBeCloseTo(before - 1, 2);
  });

  it("retries 429 RATE_LIMITED and 504 on a GET (no Idempotency-Key there), up to maxRetries", async () => {
    const ok = json(200, { success: true, data: { refundId: "rfnd_x" } });
    const f = await fake([apiError(429, "RATE_LIMITED", { "Retry-After": "1" }), apiError(504, "SOURCE_TIMEOUT"), ok]);
    const parakh = new Parakh({ baseUrl: f.url, ...fakeKeys });
    const { data, response } = await parakh.payments.refunds.retrieve("rfnd_x").withResponse();
    expect(data).toEqual({ refundId: "rfnd_x" });
    expect(response.attempts).toBe(3);
    expect(f.seen.map((r) => r.headers["idempotency-key"])).toEqual([undefined, undefined, undefined]);
    expect(f.seen.map((r) => r.headers["x-merchant-id"])).toEqual(["mer_fake", "mer_fake", "mer_fake"]);

    const always = await fake([apiError(503, "SERVICE_UNAVAILABLE")]);
    const err = await new Parakh({ baseUrl: always.url, ...fakeKeys, maxRetries: 2 }).payments.retrieve("pay_1_x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(always.seen).toHaveLength(3);
  });

  it("does not retry other refusals, OTP limits, 500s, or a Retry-After beyond the cap", async () => {
    for (const [answer, Class] of [
      [apiError(400, "INVALID_PAN"), InvalidRequestError],
      [apiError(429, "OTP_RESEND_TOO_SOON", { "Retry-After": "60" }), RateLimitError],
      [apiError(500, "INTERNAL_ERROR"), ServerError],
      [apiError(503, "SOURCE_UNAVAILABLE", { "Retry-After": "120" }), UpstreamError],
    ] as const) {
      const f = await fake([answer]);
      const err = await new Parakh({ baseUrl: f.url, ...fakeKeys, maxRetryAfterMs: 60_000 }).pan.verify({ pan: "ABCPK1234F" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Class);
      expect(f.seen).toHaveLength(1);
    }
    const proxyPage = await fake([(_req, res) => void res.writeHead(502, { "Content-Type": "text/html" }).end("<html>bad gateway</html>")]);
    const html = await new Parakh({ baseUrl: proxyPage.url, ...fakeKeys }).pan.verify({ pan: "ABCPK1234F" }).catch((e: unknown) => e);
    expect(html).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 502, raw: "<html>bad gateway</html>" });
  });

  it("times out a try that does not answer, retries it with the same Idempotency-Key, and raises TimeoutError when out of retries", async () => {
    const silent: Script = () => undefined;
    const f = await fake([silent, json(200, { status: "success", data: { pan: "ABCPK1234F" }, timestamp: "2026-01-01T00:00:00.000Z" })]);
    const parakh = new Parakh({ baseUrl: f.url, ...fakeKeys, timeoutMs: 300 });
    const { response } = await parakh.pan.verify({ pan: "ABCPK1234F" }).withResponse();
    expect(response.attempts).toBe(2);
    expect(f.seen).toHaveLength(2);
    expect(f.seen[1]!.headers["idempotency-key"]).toBe(f.seen[0]!.headers["idempotency-key"]);
    expect(f.seen[0]!.headers.authorization).toBe("Bearer sk_test_fake");

    const never = await fake([silent]);
    const err = await new Parakh({ baseUrl: never.url, ...fakeKeys, timeoutMs: 300, maxRetries: 0 }).pan.verify({ pan: "ABCPK1234F" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: "TIMEOUT", status: undefined });
    expect(never.seen).toHaveLength(1);
  });

  it("raises ConnectionError when nothing listens, after its retries", async () => {
    const gone = await fake([json(200, {})]);
    gone.close();
    const err = await new Parakh({ baseUrl: gone.url, ...fakeKeys, maxRetries: 1 }).pan.verify({ pan: "ABCPK1234F" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).not.toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: "CONNECTION_ERROR" });
  });
});
