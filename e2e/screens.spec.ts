import { expect, test, type Page } from "@playwright/test";
import { heading, openCheckout, simulateAttempt, statusOf } from "./helpers/checkout";
import { createCheckout, demoCredentials } from "./helpers/merchant";

// What the screens show at the widths merchants and customers use: nothing scrolls sideways on a
// phone, the sandbox simulator is above the fold on a laptop, the sign-up says what it is doing, a
// payment that may succeed late says so, and a PAN is shown without its serial.

const DASHBOARD_PAGES = [
  "/dashboard",
  "/dashboard/payments",
  "/dashboard/refunds",
  "/dashboard/verifications",
  "/dashboard/batches",
  "/dashboard/kyc",
  "/dashboard/wallet",
  "/dashboard/logs",
  "/dashboard/keys",
  "/dashboard/whitelist",
  "/dashboard/webhooks",
  "/dashboard/settings",
];

/** How far the page scrolls sideways: 0 when it fits. */
const sidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function signIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: /sign in/i }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

/** Every page at 390 px, with a screenshot of each attached to the report. */
async function expectNoSidewaysScroll(page: Page, urls: string[], testInfo: import("@playwright/test").TestInfo) {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const url of urls) {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.waitForLoadState("networkidle");
    expect(await sidewaysScroll(page), `${url} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
    const file = testInfo.outputPath(`${url.replaceAll("/", "_")}-390.png`);
    await page.screenshot({ path: file, fullPage: true });
  }
}

test("sign-up names each step on its button, and a long email fits every dashboard page at 390 px", async ({ page }, testInfo) => {
  // An address with nowhere to break a line (no spaces or hyphens), as long as real ones get.
  const email = `owner${Date.now()}kiranaexpresswholesale@kiranaexpresswholesaletraders.example`;
  // Each step held back a moment, so the button's words can be read while they show.
  const hold = (ms: number) => async (route: import("@playwright/test").Route) => {
    await new Promise((r) => setTimeout(r, ms));
    await route.continue();
  };
  await page.route("**/api/trpc/account.signup**", hold(1500));
  await page.route("**/api/auth/callback/merchant**", hold(1500));
  await page.goto("/signup");
  await page.getByLabel("Business name").fill("Kirana Express Wholesale");
  await page.getByLabel("Work email").fill(email);
  await page.getByLabel("Password").fill("kirana-secret-pass");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("button", { name: "Creating your account…" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Signing you in…" })).toBeDisabled();
  const shown = page.getByRole("dialog", { name: "Your sandbox API key" });
  await expect(shown).toBeVisible();
  await shown.getByRole("button", { name: /saved it/i }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await expectNoSidewaysScroll(page, DASHBOARD_PAGES, testInfo);
  await expect(page.locator("dd").filter({ hasText: email })).toBeVisible();
});

test("a payment whose UPI attempt was left says payment.success may follow payment.failed; its page fits 390 px", async ({ page, request }, testInfo) => {
  const p = await createCheckout(request);
  await openCheckout(page, p.paymentId);
  await page.getByRole("button", { name: "Show QR code" }).click();
  await page.getByRole("button", { name: "Use another method" }).click();
  await expect(heading(page, "Choose how to pay")).toBeVisible();
  const [left] = (await statusOf(request, p.paymentId)).attempts;
  expect(left).toMatchObject({ method: "UPI", status: "ABANDONED" });

  const c = demoCredentials();
  await signIn(page, c.email, c.password);
  await page.goto(`/dashboard/payments/${p.paymentId}`);
  const note = page.getByTestId("late-result-note");
  await expect(note).toContainText("may get payment.success after payment.failed");
  await expect(note).toContainText("GET /api/payments/{paymentId}/status");

  // The customer approves the abandoned attempt after all: the payment succeeds through it, and the note says what was sent.
  await simulateAttempt(request, p.paymentId, left!.attemptId, "SUCCESS");
  await page.reload();
  await expect(note).toContainText("may have been sent payment.failed before payment.success");
  await expectNoSidewaysScroll(page, [`/dashboard/payments/${p.paymentId}`], testInfo);
});

test("Verifications shows a PAN without its serial, and finds it by the whole PAN", async ({ page, request }) => {
  const c = demoCredentials();
  const pan = "AFZPK7190K";
  const res = await request.post("/v1/identity/pan/verify", { headers: { Authorization: `Bearer ${c.sandbox.secretKey}` }, data: { pan } });
  expect(res.status()).toBe(200);
  await signIn(page, c.email, c.password);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto(`/dashboard/verifications?subject=${pan}`);
    await expect(page.getByRole("link", { name: "AFZPKXXXXK" }).first()).toBeVisible();
    await expect(page.locator("main")).not.toContainText(pan);
  }
});

test.describe("the sandbox UPI simulator", () => {
  test("is on screen without scrolling at 1280×800 once the QR code shows", async ({ page, request }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const p = await createCheckout(request, { description: "2 x Masala chai, 1 x Bun maska" });
    await openCheckout(page, p.paymentId);
    await page.getByRole("button", { name: "Show QR code" }).click();
    await expect(page.getByRole("img", { name: "UPI QR code to pay ₹499.00" })).toBeVisible();
    await expectInView(page, 800);
    await page.screenshot({ path: testInfo.outputPath("qr-simulator-1280x800.png") });
    await page.getByRole("button", { name: "Simulate success" }).click();
    await expect(heading(page, "Payment successful")).toBeVisible();
  });

  test.describe("on a phone", () => {
    test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

    test("is on screen while a UPI request waits, and still ends the payment", async ({ page, request }, testInfo) => {
      const p = await createCheckout(request, { description: "2 x Masala chai, 1 x Bun maska" });
      await openCheckout(page, p.paymentId);
      // pending@parakh is never answered, so the simulator is offered after a few seconds.
      await page.getByLabel("Pay by UPI ID").fill("pending@parakh");
      await page.getByRole("button", { name: "Send request for ₹499.00" }).click();
      await expect(heading(page, "Approve the payment in your UPI app")).toBeVisible();
      await expect(page.getByRole("button", { name: "Simulate failure" })).toBeVisible();
      await expectInView(page, 844);
      expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: testInfo.outputPath("upi-simulator-390.png") });
      await page.getByRole("button", { name: "Simulate failure" }).click();
      await expect(heading(page, "Payment failed")).toBeVisible();
    });
  });
});

/** Both simulator buttons lie wholly inside the window as first shown (nothing scrolled). */
async function expectInView(page: Page, height: number) {
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  for (const name of ["Simulate success", "Simulate failure"]) {
    const box = await page.getByRole("button", { name }).boundingBox();
    expect(box, name).not.toBeNull();
    expect(box!.y, name).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height, `${name} ends below the ${height} px window`).toBeLessThanOrEqual(height);
  }
}
