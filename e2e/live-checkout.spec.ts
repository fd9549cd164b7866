import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { heading } from "./helpers/checkout";
import { createCheckout, uniqueOrderId } from "./helpers/merchant";

// Live payments on the hosted page, through the loopback fake of the Cashfree Payment Gateway that
// playwright.config.ts starts beside the server (it validates every call against the vendor's
// document and serves the vendor's JS checkout and card page). The merchant is made live as an
// operator would: `merchant go-live`, a live key, and the tests' address whitelisted.

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");
const VENDOR = process.env.PARAKH_E2E_FAKE_PG_URL ?? "";

function cli(args: string[]) {
  const out = execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args, "--json"], {
    cwd: ROOT,
    env: { ...process.env, PARAKH_ENV_FILE: "none", DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
  return JSON.parse(out) as Record<string, string>;
}

let liveHeaders: Record<string, string>;

test.beforeAll(() => {
  expect(VENDOR, "playwright.config.ts sets PARAKH_E2E_FAKE_PG_URL").toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const email = `live-${Date.now()}@example.com`;
  const m = cli(["merchant", "create", "--name", "Chai Point", "--email", email, "--password", "correct-horse-battery"]);
  cli(["merchant", "go-live", "--merchant", m.merchantId!]);
  const key = cli(["key", "create", "--merchant", m.merchantId!, "--mode", "live"]);
  cli(["whitelist", "add", "--merchant", m.merchantId!, "--ip", "127.0.0.1"]);
  liveHeaders = { "x-merchant-id": m.merchantId!, "x-api-key": key.publicKey!, "x-secret-key": key.secretKey! };
});

test.afterEach(async ({ request }) => {
  // Every call Parakh made to the vendor matched the vendor's published document.
  expect(await (await request.get(`${VENDOR}/__control/problems`)).json()).toEqual([]);
});

async function createLive(request: APIRequestContext) {
  const res = await request.post("/api/checkout", {
    headers: liveHeaders,
    data: { orderId: uniqueOrderId("LIVE"), amount: "499", meta: { name: "Asha Rao", phone: "+919876543210" } },
  });
  const json = await res.json();
  expect(res.status(), JSON.stringify(json)).toBe(200);
  return json.data as { paymentId: string };
}

async function openLive(page: Page, paymentId: string) {
  const res = await page.goto(`/checkout/${paymentId}`);
  expect(res?.status()).toBe(200);
  await expect(page).toHaveTitle("Pay ₹499.00 to Chai Point");
  await page.waitForLoadState("networkidle");
  return res!;
}

const settleAtVendor = (request: APIRequestContext, orderId: string) => request.post(`${VENDOR}/__control/settle`, { data: { orderId, outcome: "SUCCESS" } });

test("only a live checkout page may load the vendor's JS checkout", async ({ page, request }) => {
  const live = await createLive(request);
  const liveCsp = (await openLive(page, live.paymentId)).headers()["content-security-policy"]!;
  expect(liveCsp).toMatch(new RegExp(`script-src [^;]*${VENDOR.replace(/[.:/]/g, "\\$&")}`));
  expect(liveCsp).toMatch(new RegExp(`form-action 'self' ${VENDOR.replace(/[.:/]/g, "\\$&")}(;|$)`));
  const sandbox = await createCheckout(request);
  const sandboxCsp = (await request.get(`/checkout/${sandbox.paymentId}`)).headers()["content-security-policy"]!;
  expect(sandboxCsp).not.toContain(VENDOR);
  expect(sandboxCsp).toContain("form-action 'self';");
});

test("lists for netbanking only the banks the processor can take live", async ({ page, request }) => {
  const live = await createLive(request);
  await openLive(page, live.paymentId);
  await page.getByRole("tab", { name: /Netbanking/ }).click();
  const banks = page.getByRole("radio");
  await expect(banks).toHaveCount(3);
  expect(await banks.evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual(["Axis Bank", "HDFC Bank", "ICICI Bank"]);
});

for (const width of [1280, 390] as const) {
  test.describe(`live checkout at ${width} px`, () => {
    test.use(width === 390 ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } });

    test("pays by UPI with the vendor's QR or app link, shown again after a reload", async ({ page, request }, testInfo) => {
      const { paymentId } = await createLive(request);
      await openLive(page, paymentId);
      if (width === 1280) {
        await page.getByRole("button", { name: "Show QR code" }).click();
        const qr = page.getByRole("img", { name: "UPI QR code to pay ₹499.00" });
        await expect(qr).toHaveAttribute("src", /^data:image\/png;base64,/); // the vendor's QR, not Parakh's sandbox one
        await page.reload();
        await expect(page.getByRole("img", { name: "UPI QR code to pay ₹499.00" })).toHaveAttribute("src", /^data:image\/png;base64,/);
      } else {
        // A phone opens its UPI app with the vendor's link for this attempt (nothing here handles upi:, so the page stays).
        await page.getByRole("link", { name: "Pay ₹499.00 with UPI app" }).tap();
        const again = page.getByRole("link", { name: "Open UPI app again" });
        await expect(again).toHaveAttribute("href", /^upi:\/\/pay\?pa=cashfree@fakebank&/);
        await page.reload();
        await expect(page.getByRole("link", { name: "Open UPI app again" })).toHaveAttribute("href", /^upi:\/\/pay\?pa=cashfree@fakebank&/);
      }
      await expect(heading(page, "Approve the payment in your UPI app")).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      const file = testInfo.outputPath(`live-upi-pending-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await testInfo.attach(`live UPI pending at ${width} px`, { path: file, contentType: "image/png" });

      expect((await (await settleAtVendor(request, paymentId)).json()).delivered).toBe(200);
      await expect(heading(page, "Payment successful")).toBeVisible({ timeout: 15_000 });
    });

    test("pays by netbanking on the bank's page the vendor gives, with a way back to it while it waits", async ({ page, request }, testInfo) => {
      const { paymentId } = await createLive(request);
      await openLive(page, paymentId);
      await page.getByRole("tab", { name: /Netbanking/ }).click();
      await page.getByText("HDFC Bank").click();
      // Straight to the bank's page: not through Parakh's sandbox bank route, not even by a client-side hop.
      const viaSandboxBank: string[] = [];
      page.on("request", (r) => new URL(r.url()).pathname === `/checkout/${paymentId}/bank` && viaSandboxBank.push(r.url()));
      await page.getByRole("button", { name: "Continue to HDFC Bank" }).click();
      // The vendor's Order Pay answer named the bank's page (data.url): the customer goes straight there.
      await page.waitForURL(new RegExp(`^${VENDOR}/pg/view/redirecttobank/\\d+$`));
      expect(viaSandboxBank).toEqual([]);
      await expect(page.getByRole("heading", { name: "HDFC Bank netbanking (test)" })).toBeVisible();
      const bankPage = page.url();

      // Reopened meanwhile, the payment waits for the bank and leads back to that page.
      await openLive(page, paymentId);
      await expect(heading(page, "Waiting for the bank")).toBeVisible();
      await expect(page.getByText("Finish the payment of ₹499.00 on HDFC Bank's page.")).toBeVisible();
      const back = page.getByRole("link", { name: "Go to HDFC Bank" });
      await expect(back).toHaveAttribute("href", bankPage);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      const file = testInfo.outputPath(`live-netbanking-pending-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await testInfo.attach(`live netbanking pending at ${width} px`, { path: file, contentType: "image/png" });
      // An old link to Parakh's sandbox bank page goes to the real one too.
      await page.goto(`/checkout/${paymentId}/bank`);
      await page.waitForURL(bankPage);

      await page.getByRole("button", { name: "Authorise payment" }).click();
      await page.waitForURL(new RegExp(`/checkout/${paymentId}$`));
      await expect(heading(page, "Payment successful")).toBeVisible({ timeout: 15_000 });
      await expect(page.locator("dl").last()).toContainText("Netbanking · HDFC Bank");
      const paid = testInfo.outputPath(`live-netbanking-paid-${width}.png`);
      await page.screenshot({ path: paid, fullPage: true });
      await testInfo.attach(`live netbanking paid at ${width} px`, { path: paid, contentType: "image/png" });
      const status = await (await request.get(`/api/payments/${paymentId}/status`, { headers: liveHeaders })).json();
      expect(status.data).toMatchObject({ status: "SUCCESS", method: "NETBANKING", mode: "live" });
    });

    test("pays by card on the vendor's page and comes back paid; Parakh's page has no card field", async ({ page, request }, testInfo) => {
      const { paymentId } = await createLive(request);
      await openLive(page, paymentId);
      await page.getByRole("tab", { name: /Card/ }).click();
      await expect(page.getByText("Pay by debit or credit card on Cashfree's secure page")).toBeVisible();
      await expect(page.getByLabel("Card number")).toHaveCount(0);
      await expect(page.getByLabel("CVV")).toHaveCount(0);
      expect(await page.locator("input").count()).toBe(0);
      const file = testInfo.outputPath(`live-card-tab-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await testInfo.attach(`live card tab at ${width} px`, { path: file, contentType: "image/png" });

      await page.getByRole("button", { name: "Continue to card payment of ₹499.00" }).click();
      await page.waitForURL(`${VENDOR}/pg/view/sessions/checkout`);
      await expect(page.getByRole("heading", { name: "Cashfree test checkout" })).toBeVisible();
      await page.getByLabel("Card number").fill("4111 1111 1111 1111");
      await page.getByLabel("Expiry (MM/YY)").fill("12/30");
      await page.getByLabel("CVV").fill("123");
      await page.getByRole("button", { name: "Pay now" }).click();

      await page.waitForURL(new RegExp(`/checkout/${paymentId}$`));
      await expect(heading(page, "Payment successful")).toBeVisible({ timeout: 15_000 });
      const status = await (await request.get(`/api/payments/${paymentId}/status`, { headers: liveHeaders })).json();
      expect(status.data).toMatchObject({ status: "SUCCESS", method: "CARD", mode: "live" });
      expect(JSON.stringify(status.data)).not.toContain("4111111111111111");
    });

    test("a card declined on the vendor's page comes back as a failed payment to try again", async ({ page, request }, testInfo) => {
      const { paymentId } = await createLive(request);
      await openLive(page, paymentId);
      await page.getByRole("tab", { name: /Card/ }).click();
      await page.getByRole("button", { name: "Continue to card payment of ₹499.00" }).click();
      await page.waitForURL(`${VENDOR}/pg/view/sessions/checkout`);
      await page.getByLabel("Card number").fill("4000 0000 0000 0002");
      await page.getByLabel("Expiry (MM/YY)").fill("12/30");
      await page.getByLabel("CVV").fill("123");
      await page.getByRole("button", { name: "Pay now" }).click();

      await page.waitForURL(new RegExp(`/checkout/${paymentId}$`));
      // What the sandbox shows for a declined card, and no "we stopped waiting" note.
      await expect(heading(page, "Payment failed")).toBeVisible({ timeout: 15_000 });
      await expect(page.getByText("Your card was declined by the bank that issued it.")).toBeVisible();
      await expect(page.getByText(/We stopped waiting/)).toHaveCount(0);
      const file = testInfo.outputPath(`live-card-declined-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await testInfo.attach(`live card declined at ${width} px`, { path: file, contentType: "image/png" });
      const status = await (await request.get(`/api/payments/${paymentId}/status`, { headers: liveHeaders })).json();
      expect(status.data).toMatchObject({ status: "FAILED", method: "CARD" });
      expect(status.data.attempts).toEqual([expect.objectContaining({ method: "CARD", status: "FAILED", errorCode: "PAYMENT_DECLINED" })]);

      // Try again: the same order's card page, and this time the card pays.
      await page.getByRole("button", { name: "Try again" }).click();
      await page.getByRole("button", { name: "Continue to card payment of ₹499.00" }).click();
      await page.waitForURL(`${VENDOR}/pg/view/sessions/checkout`);
      await page.getByLabel("Card number").fill("4111 1111 1111 1111");
      await page.getByLabel("Expiry (MM/YY)").fill("12/30");
      await page.getByLabel("CVV").fill("123");
      await page.getByRole("button", { name: "Pay now" }).click();
      await page.waitForURL(new RegExp(`/checkout/${paymentId}$`));
      await expect(heading(page, "Payment successful")).toBeVisible({ timeout: 15_000 });
    });
  });
}
