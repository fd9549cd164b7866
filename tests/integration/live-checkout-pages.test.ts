import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeCashfreePg } from "../helpers/fake-cashfree-pg";
import { request } from "../helpers/http";
import { checkVendorCalls, startLivePayments, stopLivePayments, type LivePayments } from "../helpers/live-payments";
import { type Started } from "../helpers/targets";

// The hosted page's own calls to the live processor, as the production build runs them: the server
// serves its pages (and their tRPC endpoint) from the page thread, whose bundle has its own copy of
// the server's modules beside the services the thread built. The vendor is the loopback fake of the
// Cashfree Payment Gateway, checking every call against the vendor's OpenAPI document.
const ROOT = path.resolve(__dirname, "../..");
const built = fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"));
const CREDENTIALS = { clientId: "CF_PG_PAGES_TEST", clientSecret: "cfsk_ma_pg_pages_test_secret" };

describe.skipIf(!built)("the live hosted page in the production build", () => {
  let vendor: FakeCashfreePg;
  let env: Started;
  let headers: Record<string, string>;
  let live: LivePayments | undefined;
  let seq = 0;

  beforeAll(async () => {
    live = await startLivePayments("sqlite", "Page Shop", CREDENTIALS, { SERVE_PAGES: "true" });
    ({ vendor, env, headers } = live);
  }, 120_000);
  afterEach(() => checkVendorCalls(live));
  afterAll(() => stopLivePayments(live));

  async function create() {
    const r = await request(env.server.url, "/api/checkout", {
      headers,
      body: { orderId: `ORDER_PAGES_${Date.now()}_${seq++}`, amount: "499.00", meta: { name: "Asha Rao", phone: "+919876543210" } },
    });
    expect(r.status, r.text).toBe(200);
    return { paymentId: r.json.data.paymentId as string, token: r.json.data._token as string };
  }

  /** A call of the page's own tRPC endpoint, as its script makes it (same origin, the page's CSRF header). */
  const pageCall = (procedure: string, input: unknown) =>
    request(env.server.url, `/api/trpc/${procedure}`, {
      headers: { "x-parakh-csrf": "1", origin: env.server.url },
      body: input,
    });

  const status = async (paymentId: string) => (await request(env.server.url, `/api/payments/${paymentId}/status`, { headers })).json.data;

  it("answers the vendor's 500 at order creation with 503 SERVICE_UNAVAILABLE and words the customer can act on", async () => {
    const { paymentId, token } = await create();
    expect((await request(env.server.url, `/checkout/${paymentId}`)).status).toBe(200);
    vendor.fail("500", { operation: "PGCreateOrder", times: 1 });
    const r = await pageCall("checkout.pay", { paymentId, token, payment: { method: "UPI", flow: "collect", vpa: "asha@okbank" } });
    expect(r.status, r.text).toBe(503);
    expect(r.json.error.data).toMatchObject({ code: "SERVICE_UNAVAILABLE", httpStatus: 503, appCode: "SERVICE_UNAVAILABLE" });
    expect(r.json.error.message).toMatch(/try again/i);
    expect(r.json.error.message).not.toMatch(/upstream|HTTP 500|internal_error/i);
    expect(r.headers["retry-after"]).toBe("5");
    // Nothing was claimed: the customer may try again at once, and the one order is found again.
    expect(await status(paymentId)).toMatchObject({ status: "CREATED", attempts: [] });
    const again = await pageCall("checkout.pay", { paymentId, token, payment: { method: "UPI", flow: "collect", vpa: "asha@okbank" } });
    expect(again.status, again.text).toBe(200);
    expect(again.json.result.data).toMatchObject({ status: "PENDING" });
  });

  it("answers the vendor's own refusal as the upstream layer words it: 409 PAYMENT_NOT_PAYABLE for an expiry it will not take", async () => {
    const { paymentId, token } = await create();
    vendor.fail("expiry-refused", { operation: "PGCreateOrder", times: 1 });
    const r = await pageCall("checkout.pay", { paymentId, token, payment: { method: "UPI", flow: "intent" } });
    expect(r.status, r.text).toBe(409);
    expect(r.json.error.data).toMatchObject({ code: "CONFLICT", httpStatus: 409, appCode: "PAYMENT_NOT_PAYABLE" });
    expect(r.json.error.message).toBe("This payment expires too soon to be paid; create a new payment.");
  });

  it("answers the same for the card hand-off", async () => {
    const { paymentId, token } = await create();
    vendor.fail("500", { operation: "PGCreateOrder", times: 1 });
    const r = await pageCall("checkout.cardHandOff", { paymentId, token });
    expect(r.status, r.text).toBe(503);
    expect(r.json.error.data).toMatchObject({ appCode: "SERVICE_UNAVAILABLE" });
    expect(r.json.error.message).toMatch(/try again/i);
  });

  it("leads an old link to the sandbox's bank page of a live payment to the bank's page the vendor named, else back to the checkout", async () => {
    const { paymentId, token } = await create();
    const bank = await request(env.server.url, `/checkout/${paymentId}/bank`);
    expect(bank.status).toBe(307);
    expect(bank.headers.location).toBe(`/checkout/${paymentId}`);
    const paid = await pageCall("checkout.pay", { paymentId, token, payment: { method: "NETBANKING", bank: "ICICI Bank" } });
    expect(paid.status, paid.text).toBe(200);
    const action = paid.json.result.data.attempt.action;
    expect(action).toEqual({ kind: "redirect", url: expect.stringMatching(new RegExp(`^${vendor.url}/view/redirecttobank/\\d+$`)) });
    const pending = await request(env.server.url, `/checkout/${paymentId}/bank`);
    expect(pending.status).toBe(307);
    expect(pending.headers.location).toBe(action.url);
  });

  it("answers a vendor that never answers with 504 SOURCE_TIMEOUT once the payments deadline (15 s) passes", async () => {
    const { paymentId, token } = await create();
    vendor.fail("hang", { operation: "PGCreateOrder", times: 1 });
    const r = await pageCall("checkout.pay", { paymentId, token, payment: { method: "NETBANKING", bank: "HDFC Bank" } });
    expect(r.status, r.text).toBe(504);
    expect(r.json.error.data).toMatchObject({ code: "GATEWAY_TIMEOUT", httpStatus: 504, appCode: "SOURCE_TIMEOUT" });
    expect(r.json.error.message).toMatch(/try again/i);
    expect(r.headers["retry-after"]).toBe("5");
    expect(await status(paymentId)).toMatchObject({ status: "CREATED", attempts: [] });
  }, 40_000);
});
