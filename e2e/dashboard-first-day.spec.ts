import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import { startRedirectReceiver } from "./helpers/redirect-receiver";
import { signUpThroughForm } from "./helpers/sign-up";

// A new merchant's first day: the Overview's checklist, the lists at desktop width, the phone header.
// The steps share the account they create.
test.describe.configure({ mode: "serial" });

const stamp = Date.now();
const merchant = { name: "Chai Point Retail Private Limited", email: `founder${stamp}@chaipoint-retail.example`, password: "chai-point-pass-123" };
const keys = { merchantId: "", publicKey: "", secretKey: "" };

/** Console errors, uncaught page errors and CSP violations of one page, for a closing check. */
async function watchProblems(page: Page): Promise<() => Promise<string[]>> {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return async () => problems;
}

async function signIn(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: /sign in/i }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

async function screenshots(page: Page, name: string, testInfo: TestInfo) {
  for (const [label, width, height] of [
    ["desktop", 1280, 800],
    ["phone", 390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: testInfo.outputPath(`${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const paymentHeaders = () => ({ "x-merchant-id": keys.merchantId, "x-api-key": keys.publicKey, "x-secret-key": keys.secretKey });
const checklist = (page: Page) => page.getByRole("region", { name: "Set up your integration" });
const step = (page: Page, title: string) => checklist(page).getByRole("listitem").filter({ hasText: title });

test("the checklist ticks itself from real calls, and one click whitelists the refused server", async ({ page, request }, testInfo) => {
  const problems = await watchProblems(page);
  const { dialog: shown, ...signedUp } = await signUpThroughForm(page, merchant);
  Object.assign(keys, signedUp);
  await shown.getByRole("button", { name: /saved it/i }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // A new account: nothing done, and the first step is the one to do.
  await expect(checklist(page)).toContainText("0 of 6 done");
  await expect(checklist(page).getByRole("listitem")).toHaveCount(6);
  await expect(step(page, "Save your sandbox secret key")).toHaveAttribute("aria-current", "step");
  await screenshots(page, "checklist-new", testInfo);

  const pan = await request.post("/v1/identity/pan/verify", {
    headers: { Authorization: `Bearer ${keys.secretKey}` },
    data: { pan: "ABCPK1234F", name: "Arjun Kapoor" },
  });
  expect(pan.status()).toBe(200);
  // The list polls; no reload needed.
  await expect(step(page, "Save your sandbox secret key")).toContainText("Done:", { timeout: 15_000 });
  await expect(step(page, "Make your first verification call")).toContainText("Done:");
  await expect(step(page, "Whitelist your server’s IP address")).toContainText("To do:");
  // The figures below refresh with the tick: no "No API calls yet" beside a ticked first call.
  await expect(page.getByText(/No API calls in sandbox mode yet/)).toHaveCount(0, { timeout: 5_000 });

  // Payments always check the whitelist, so the first checkout from this machine is refused.
  const order = { orderId: `ORDER_FIRST_DAY_${stamp}`, amount: "250" };
  const refused = await request.post("/api/checkout", { headers: paymentHeaders(), data: order });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.code).toBe("IP_NOT_WHITELISTED");
  const whitelistStep = step(page, "Whitelist your server’s IP address");
  await expect(whitelistStep).toContainText("Last refused: POST /api/checkout from 127.0.0.1", { timeout: 15_000 });
  await screenshots(page, "checklist-refused", testInfo);
  await whitelistStep.getByRole("button", { name: "Add 127.0.0.1 to the whitelist" }).click();
  await expect(whitelistStep).toContainText("Done:");
  await expect(whitelistStep.getByRole("button")).toHaveCount(0);

  // The same call now goes through (the server hears of the new entry within a second), and the payment step ticks.
  await expect.poll(async () => (await request.post("/api/checkout", { headers: paymentHeaders(), data: order })).status(), { timeout: 5_000 }).toBe(200);
  await expect(step(page, "Create a test payment")).toContainText("Done:", { timeout: 15_000 });
  await expect(checklist(page)).toContainText("4 of 6 done");

  // The address went on the list through the whitelist's own path, with its label.
  await page.goto("/dashboard/whitelist");
  await expect(page.getByText("127.0.0.1", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("Server (from a refused call)").first()).toBeVisible();

  // The endpoint is a loopback stand-in of the test's own: whatever the server delivers reaches nothing else.
  const hooks = await startRedirectReceiver();
  await page.goto("/dashboard/webhooks");
  await page.getByRole("button", { name: "Add endpoint" }).first().click();
  await page.getByRole("dialog").getByLabel("Endpoint URL").fill(`${hooks.origin}/hooks/first-day`);
  await page.getByRole("dialog").getByRole("button", { name: "Add endpoint" }).click();
  await expect(page.getByRole("listitem").filter({ hasText: `${new URL(hooks.origin).host}/hooks/first-day` })).toBeVisible();
  await page.goto("/dashboard");
  await expect(step(page, "Add a webhook endpoint")).toContainText("Done:");
  await expect(step(page, "Request go-live")).toHaveAttribute("aria-current", "step");

  // Dismissed stays dismissed in this browser…
  await checklist(page).getByRole("button", { name: "Dismiss checklist" }).click();
  await expect(checklist(page)).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Calls per day" })).toBeVisible();
  await expect(checklist(page)).toHaveCount(0);
  // …and a browser that never dismissed it still sees it, until the last step is done.
  await page.evaluate(() => window.localStorage.clear());
  await page.reload();
  await expect(checklist(page)).toContainText("5 of 6 done");
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Request go-live" }).click();
  await expect(page.getByText(/Requested/).first()).toBeVisible();
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: "Calls per day" })).toBeVisible();
  await expect(checklist(page)).toHaveCount(0);
  await hooks.close();

  expect(await problems()).toEqual([]);
});

/** Whether the table's scroll box is wider inside than out (it then says so). */
const tableScrolls = (page: Page) => page.locator("table").first().locator("xpath=..").getAttribute("data-overflowing");

/** Whether an element of the table lies wholly inside the table's scroll box, sideways. */
const insideScrollBox = (el: Locator) =>
  el.evaluate((node) => {
    const box = node.closest("table")!.parentElement!.getBoundingClientRect();
    const r = node.getBoundingClientRect();
    return r.left >= box.left && r.right <= box.right;
  });

test("payments and batches fit 1280 px with whole, copyable ids, and show when they scroll", async ({ page, context, request }, testInfo) => {
  const problems = await watchProblems(page);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  // A long order id, as merchants' systems make them.
  const orderId = `ORDER_${stamp}_WAREHOUSE-MUMBAI-WEST_2026-11-27_SESSION-4471`.slice(0, 64);
  const res = await request.post("/api/checkout", { headers: paymentHeaders(), data: { orderId, amount: "12345.67" } });
  expect(res.status(), await res.text()).toBe(200);
  const paymentId: string = (await res.json()).data.paymentId;
  const batch = await request.post("/v1/identity/pan/batch", {
    headers: { Authorization: `Bearer ${keys.secretKey}` },
    data: { client_batch_id: "november-vendor-onboarding-run", items: [{ pan: "ABCPK1234F", name: "Arjun Kapoor" }, { pan: "NOTAPAN" }] },
  });
  expect(batch.status(), await batch.text()).toBe(202);
  const batchId: string = (await batch.json()).data.batch_id;

  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/dashboard/payments");
  const row = page.getByRole("row").filter({ hasText: orderId.slice(0, 20) });
  await expect(row).toBeVisible();
  expect(await tableScrolls(page)).toBeNull();
  await expect(page.getByText(/scroll sideways/)).toHaveCount(0);
  // The id is shortened in the middle, both ends showing, with the whole id on hover and for readers.
  const id = row.locator(`code[title="${paymentId}"]`);
  await expect(id).toContainText(`${paymentId.slice(0, 10)}…${paymentId.slice(-6)}`);
  await expect(id.locator(".sr-only")).toHaveText(paymentId);
  const copy = row.getByRole("button", { name: `Copy payment id ${paymentId}` });
  await expect(copy).toBeInViewport({ ratio: 1 });
  expect(await insideScrollBox(copy)).toBe(true);
  await copy.click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(paymentId);
  // Selecting the shortened text and copying gives the whole id too.
  await page.evaluate(() => navigator.clipboard.writeText(""));
  await id.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el.querySelector('[aria-hidden="true"]')!);
    window.getSelection()!.removeAllRanges();
    window.getSelection()!.addRange(range);
    document.execCommand("copy");
  });
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(paymentId);
  await screenshots(page, "payments", testInfo);

  // Narrower than the table: it scrolls, and says so.
  await page.setViewportSize({ width: 1024, height: 800 });
  await expect.poll(() => tableScrolls(page)).toBe("true");
  await expect(page.getByText("More columns to the right: scroll sideways →")).toBeVisible();
  await expect(page.getByRole("region", { name: "Payments, newest first, scrolls sideways" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("payments-1024.png") });
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.goto("/dashboard/batches");
  const batchRow = page.getByRole("row").filter({ hasText: "november-vendor-onboarding-run" });
  await expect(batchRow).toBeVisible();
  await expect(batchRow.getByText("Took", { exact: false })).toBeVisible({ timeout: 20_000 });
  expect(await tableScrolls(page)).toBeNull();
  expect(await insideScrollBox(page.getByRole("columnheader", { name: "Time", exact: true }))).toBe(true);
  expect(await insideScrollBox(batchRow.getByRole("button", { name: `Copy batch id ${batchId}` }))).toBe(true);
  await expect(batchRow.locator(`code[title="${batchId}"] .sr-only`)).toHaveText(batchId);
  await screenshots(page, "batches", testInfo);

  expect(await problems()).toEqual([]);
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("the header says who is signed in, and the locked Live switch explains itself on tap", async ({ page }, testInfo) => {
    const problems = await watchProblems(page);
    await signIn(page);
    const who = page.getByTestId("signed-in-as").locator("visible=true");
    await expect(who).toContainText(merchant.name);
    await expect(who).toContainText(merchant.email);
    // Whole, not cut with an ellipsis.
    for (const text of [merchant.name, merchant.email]) {
      const fits = await who.getByText(text, { exact: true }).evaluate((el) => el.scrollWidth <= el.clientWidth);
      expect(fits, text).toBe(true);
    }

    const live = page.getByRole("radio", { name: /live/i });
    await expect(live).toBeDisabled();
    // Playwright will not tap an aria-disabled element; a finger does, so tap where it is.
    const at = (await live.boundingBox())!;
    await page.touchscreen.tap(at.x + at.width / 2, at.y + at.height / 2);
    const note = page.getByRole("status").filter({ hasText: "Live mode unlocks when an operator approves your go-live request." });
    await expect(note).toBeVisible();
    await expect(note).toBeInViewport({ ratio: 1 });
    await expect(note.getByRole("link", { name: "Request go-live in Settings" })).toHaveAttribute("href", "/dashboard/settings");
    await page.screenshot({ path: testInfo.outputPath("phone-header-live-locked.png") });
    // Still sandbox: the tap explains, it does not switch.
    await expect(page.getByRole("radio", { name: /sandbox/i })).toHaveAttribute("aria-checked", "true");
    await page.getByRole("heading", { level: 1 }).tap();
    await expect(note).toHaveCount(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

    expect(await problems()).toEqual([]);
  });
});
