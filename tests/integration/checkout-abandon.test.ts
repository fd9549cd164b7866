import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

// The hosted page's "Use another method" / "Cancel payment" (checkout.abandon) through
// the real tRPC route handler: JSON in, status code and error shape out, with the page's token.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-abandon-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { createMerchant } = await import("@/server/services/merchants/merchants");
const { createPayment } = await import("@/server/services/payments/payments");
const { issueCheckoutToken } = await import("@/server/services/payments/checkout-token");
const { POST: trpcPost } = await import("@/app/api/trpc/[trpc]/route");
const { NextRequest } = await import("next/server");

const db = () => getServices().db;

type TrpcAnswer = { status: number; data?: Record<string, any>; error?: { message: string; data: { code: string; appCode?: string } } };

/** A mutation as the page sends it: same-origin header, JSON body. */
async function mutate(proc: string, input: unknown, headers: Record<string, string> = { "x-parakh-csrf": "1" }): Promise<TrpcAnswer> {
  const req = new NextRequest(`http://localhost/api/trpc/${proc}`, {
    method: "POST",
    headers: { host: "localhost", "content-type": "application/json", ...headers },
    body: JSON.stringify(input),
  });
  const res = await trpcPost(req);
  const body = (await res.json()) as { result?: { data: Record<string, any> }; error?: TrpcAnswer["error"] };
  return { status: res.status, data: body.result?.data, error: body.error };
}

let merchantId: string;
let seq = 0;

/** A ₹499 sandbox payment and the token its hosted page would carry. */
async function newPayment() {
  const { payment } = await createPayment(db(), getServices().bulk, merchantId, "sandbox", { orderId: `ORDER_AB${++seq}`, amount: 49_900 }, 30);
  return { paymentId: payment.id, token: issueCheckoutToken(payment.id, payment.expiresAt) };
}

/** A payment whose customer is looking at the UPI QR code: PENDING with one attempt waiting. */
async function pendingPayment() {
  const p = await newPayment();
  const started = await mutate("checkout.pay", { ...p, payment: { method: "UPI", flow: "qr" } });
  expect(started.status).toBe(200);
  expect(started.data).toMatchObject({ status: "PENDING", attempt: { status: "PENDING", method: "UPI" } });
  return { ...p, attemptId: started.data!.attempt.id as string };
}

const card = { method: "CARD", card: { number: "4111111111111111", expiryMonth: "12", expiryYear: String(new Date().getFullYear() + 3), cvv: "123" } };

beforeAll(async () => {
  await migrateTestDatabase(process.env.DATABASE_URL!);
  ({ merchantId } = await createMerchant(db(), { name: "Abandon Store", email: "abandon@example.com", password: "a-long-password" }));
});

describe("checkout.abandon", () => {
  it("needs the payment's own token, from the page's own origin", async () => {
    const p = await pendingPayment();
    const other = await newPayment();
    const missing = await mutate("checkout.abandon", { paymentId: p.paymentId, then: "retry" });
    expect(missing.status).toBe(400);
    for (const token of ["ct1.zz.forged", other.token, `${p.token}x`]) {
      const refused = await mutate("checkout.abandon", { paymentId: p.paymentId, token, then: "retry" });
      expect(refused.status, token).toBe(403);
      expect(refused.error?.data.code).toBe("FORBIDDEN");
      expect(refused.error?.message).toMatch(/checkout link is not valid/);
    }
    // Without the page's CSRF header a cross-site form could drive it.
    const crossSite = await mutate("checkout.abandon", { ...p, then: "retry" }, { origin: "http://evil.test" });
    expect(crossSite.status).toBe(403);
    const badThen = await mutate("checkout.abandon", { ...p, then: "later" });
    expect(badThen.status).toBe(400);

    const still = await db().paymentAttempt.findUniqueOrThrow({ where: { id: p.attemptId } });
    expect(still.status).toBe("PENDING");
    expect((await db().payment.findUniqueOrThrow({ where: { id: p.paymentId } })).status).toBe("PENDING");
  });

  it("answers 409 CONFLICT when no attempt is pending", async () => {
    const fresh = await newPayment();
    const none = await mutate("checkout.abandon", { ...fresh, then: "retry" });
    expect(none.status).toBe(409);
    expect(none.error?.data).toMatchObject({ code: "CONFLICT", appCode: "CONFLICT" });
    expect((await db().payment.findUniqueOrThrow({ where: { id: fresh.paymentId } })).status).toBe("CREATED");

    const paid = await newPayment();
    expect((await mutate("checkout.pay", { ...paid, payment: card })).data?.status).toBe("SUCCESS");
    const late = await mutate("checkout.abandon", { ...paid, then: "cancel" });
    expect(late.status).toBe(409);
    expect((await db().payment.findUniqueOrThrow({ where: { id: paid.paymentId } })).status).toBe("SUCCESS");
  });

  it("then=cancel: the attempt is ABANDONED and the payment CANCELLED, in that order on the timeline", async () => {
    const p = await pendingPayment();
    const res = await mutate("checkout.abandon", { paymentId: p.paymentId, token: p.token, then: "cancel" });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      paymentId: p.paymentId,
      status: "CANCELLED",
      isFinal: true,
      attempt: { id: p.attemptId, status: "ABANDONED", errorCode: "ATTEMPT_ABANDONED" },
    });
    const events = await db().paymentEvent.findMany({ where: { paymentId: p.paymentId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.reason])).toEqual([
      [null, "CREATED", "CREATED"],
      ["CREATED", "PENDING", "ATTEMPT_STARTED"],
      ["PENDING", "FAILED", "ATTEMPT_ABANDONED"],
      ["FAILED", "CANCELLED", "CANCELLED_BY_CUSTOMER"],
    ]);
    // Nothing more can be started or left.
    expect((await mutate("checkout.pay", { ...p, payment: card })).status).toBe(409);
    expect((await mutate("checkout.abandon", { ...p, then: "cancel" })).status).toBe(409);
  });

  it("then=retry: the payment is FAILED and a new attempt can start and pay", async () => {
    const p = await pendingPayment();
    const res = await mutate("checkout.abandon", { ...p, then: "retry" });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ status: "FAILED", isFinal: false, attempt: { id: p.attemptId, status: "ABANDONED", errorCode: "ATTEMPT_ABANDONED" } });

    const paid = await mutate("checkout.pay", { ...p, payment: card });
    expect(paid.status).toBe(200);
    expect(paid.data).toMatchObject({ status: "SUCCESS", attempt: { status: "SUCCESS", method: "CARD", cardLast4: "1111" } });
    const attempts = await db().paymentAttempt.findMany({ where: { paymentId: p.paymentId }, orderBy: { createdAt: "asc" } });
    expect(attempts.map((a) => [a.method, a.status, a.errorCode])).toEqual([
      ["UPI", "ABANDONED", "ATTEMPT_ABANDONED"],
      ["CARD", "SUCCESS", null],
    ]);
  });

  it("then=retry after a netbanking attempt lets the customer pick another bank", async () => {
    const p = await newPayment();
    expect((await mutate("checkout.pay", { ...p, payment: { method: "NETBANKING", bank: "HDFC Bank" } })).data?.status).toBe("PENDING");
    expect((await mutate("checkout.abandon", { ...p, then: "retry" })).data?.status).toBe("FAILED");
    const again = await mutate("checkout.pay", { ...p, payment: { method: "NETBANKING", bank: "ICICI Bank" } });
    expect(again.data).toMatchObject({ status: "PENDING", attempt: { bank: "ICICI Bank", status: "PENDING" } });
  });

  it("leaves an attempt once when two tabs ask at the same time", async () => {
    const p = await pendingPayment();
    const answers = await Promise.all([mutate("checkout.abandon", { ...p, then: "retry" }), mutate("checkout.abandon", { ...p, then: "cancel" })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const events = await db().paymentEvent.findMany({ where: { paymentId: p.paymentId, reason: "ATTEMPT_ABANDONED" } });
    expect(events).toHaveLength(1);
  });

  it("past the payment's expiry, leaving the attempt expires the payment", async () => {
    const p = await pendingPayment();
    // The token stays valid (it is checked against the payment, not the clock); the payment's time is up.
    await db().payment.update({ where: { id: p.paymentId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await mutate("checkout.abandon", { ...p, then: "retry" });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ status: "EXPIRED", isFinal: true, attempt: { status: "ABANDONED" } });
  });
});
