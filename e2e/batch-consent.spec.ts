import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Page, type TestInfo } from "@playwright/test";

// Consent and purpose (contract C6) where a merchant meets them in the dashboard: the New batch form
// of a live merchant (asked, checked inline, filled in from the standing settings), the batch's page,
// and the Verifications table, which shows each check's consent without scrolling sideways at 1280 px.
test.describe.configure({ mode: "serial" });

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");
const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
const merchant = { name: "Consent Kirana", email: `consent${stamp}@kirana.example`, password: "consent-secret-pass" };
const PURPOSE = "Payroll onboarding: PAN check of new joiners";
const DEFAULT_PURPOSE = "Seller onboarding: PAN check before the first payout";
let sandboxSecret = "";

function cli(args: string[]): Record<string, unknown> {
  const out = execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args, "--json"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
  return JSON.parse(out) as Record<string, unknown>;
}

async function signIn(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

async function useMode(page: Page, mode: "live" | "sandbox") {
  const radio = page.getByRole("radiogroup", { name: "Mode" }).getByRole("radio", { name: mode, exact: true });
  await radio.click();
  await expect(radio).toHaveAttribute("aria-checked", "true");
}

/** Pastes a one-row PAN file on the Batches page and waits for its preview. */
async function pasteRows(page: Page) {
  await page.goto("/dashboard/batches");
  await page.getByRole("button", { name: "Paste CSV" }).click();
  await page.getByLabel("CSV text").fill("pan,name,reference_id\nABCPK1234F,Arjun Kapoor,emp-1\n");
  await page.getByRole("button", { name: "Check rows" }).click();
  await expect(page.getByTestId("preview-accepted")).toHaveText("1");
}

const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function shot(page: Page, testInfo: TestInfo, name: string) {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

/** Submits the form and gives the queued batch's id. */
async function submitted(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Submit batch of 1 row" }).click();
  const queued = page.getByRole("status").filter({ hasText: "is queued with 1 row" });
  await expect(queued).toBeVisible();
  return (await queued.locator("code").textContent())!.trim();
}

/** The batch's page, and its Details rows of consent. */
async function expectBatchConsent(page: Page, batchId: string, consent: string, purpose?: string) {
  await page.goto(`/dashboard/batches/${batchId}`);
  await expect(page.getByRole("heading", { name: "PAN batch" })).toBeVisible();
  const details = page.locator("section").filter({ has: page.getByRole("heading", { name: "Details", exact: true }) });
  await expect(details.getByText(consent, { exact: true })).toBeVisible();
  if (purpose) await expect(details.getByText(purpose, { exact: true })).toBeVisible();
}

test.beforeAll(() => {
  const m = cli(["merchant", "create", "--name", merchant.name, "--email", merchant.email, "--password", merchant.password]);
  sandboxSecret = (m.sandbox as { secretKey: string }).secretKey;
  cli(["merchant", "go-live", "--merchant", m.merchantId as string]);
});

// First, while the merchant has no standing settings (a sandbox check would record them too).
test("a sandbox batch asks for neither", async ({ page }) => {
  await signIn(page);
  await useMode(page, "sandbox");
  await pasteRows(page);
  await expect(page.getByRole("button", { name: "Submit batch of 1 row" })).toBeVisible();
  await expect(page.getByRole("group", { name: "Consent and purpose" })).toHaveCount(0);
  const id = await submitted(page);
  await expectBatchConsent(page, id, "Not needed in sandbox");
});

test("a live batch without standing settings: the form asks for consent and a purpose, checks them inline, and the batch shows them", async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await useMode(page, "live");
  await pasteRows(page);

  const group = page.getByRole("group", { name: "Consent and purpose" });
  await expect(group).toBeVisible();
  const box = group.getByRole("checkbox", { name: "We have the consent of each person in this file for the purpose below." });
  const purpose = group.getByLabel("Purpose", { exact: true });
  await expect(box).not.toBeChecked();
  await expect(purpose).toHaveValue("");
  await expect(group.getByRole("link", { name: "Settings" })).toHaveAttribute("href", "/dashboard/settings");

  await test.step("nothing is queued until both are given; each field says what it needs", async () => {
    await page.getByRole("button", { name: "Submit batch of 1 row" }).click();
    await expect(group.getByText("Tick the box: live batches need each person's consent.")).toBeVisible();
    await expect(group.getByText("Enter the purpose (20–200 characters).")).toBeVisible();
    await expect(purpose).toHaveAttribute("aria-invalid", "true");
    await purpose.fill("Payroll check");
    await box.check();
    await page.getByRole("button", { name: "Submit batch of 1 row" }).click();
    await expect(group.getByText("The purpose must be at least 20 characters.")).toBeVisible();
    await expect(group.getByText("Tick the box: live batches need each person's consent.")).toHaveCount(0);
    await purpose.fill("x".repeat(201));
    await page.getByRole("button", { name: "Submit batch of 1 row" }).click();
    await expect(group.getByText("The purpose must be at most 200 characters.")).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "is queued" })).toHaveCount(0);
    await shot(page, testInfo, "live-batch-consent-errors-1280");
  });

  await test.step("given both, the batch is queued and its page shows them, from the request", async () => {
    await purpose.fill(`  ${PURPOSE}  `);
    await expect(group.getByText(`(20–200 characters; ${PURPOSE.length} now)`, { exact: false })).toBeVisible();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sideways(page), "the form scrolls sideways at 390 px").toBeLessThanOrEqual(0);
    await shot(page, testInfo, "live-batch-consent-390");
    await page.setViewportSize({ width: 1280, height: 800 });
    const id = await submitted(page);
    await expectBatchConsent(page, id, "Given (in the request)", PURPOSE);
    await shot(page, testInfo, "live-batch-detail-consent-1280");
  });
});

test("with a standing attestation and a default purpose, the form comes filled in; left as is, the batch rests on them", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/dashboard/settings");
  const settings = page.getByRole("form", { name: "Consent settings" });
  await settings.getByLabel("Default purpose").fill(DEFAULT_PURPOSE);
  await settings.getByRole("checkbox").check();
  await settings.getByRole("button", { name: "Save consent settings" }).click();
  await expect(page.getByText("Consent settings saved.")).toBeVisible();

  await useMode(page, "live");
  await pasteRows(page);
  const group = page.getByRole("group", { name: "Consent and purpose" });
  await expect(group.getByRole("checkbox")).toBeChecked();
  await expect(group.getByLabel("Purpose", { exact: true })).toHaveValue(DEFAULT_PURPOSE);
  await expect(group.getByText("Your default purpose.", { exact: false })).toBeVisible();
  await expect(group.getByRole("link", { name: "consent settings" })).toBeVisible();
  await shot(page, testInfo, "live-batch-consent-standing-1280");
  const id = await submitted(page);
  await expectBatchConsent(page, id, "Given (standing attestation)", DEFAULT_PURPOSE);
});

test("Verifications fits 1280 px with each check's consent and purpose: nothing scrolls sideways, and the request or batch is on screen", async ({
  page,
  request,
}, testInfo) => {
  // The widest rows a merchant makes: a long name queried, a 200-character purpose, the standing attestation, a batch.
  const long = `${"Vendor onboarding for the Diwali season sale: PAN and name check of every seller before the first payout, ".repeat(2)}`.slice(0, 200).trim();
  const headers = { Authorization: `Bearer ${sandboxSecret}` };
  for (const data of [
    { pan: "ABCPK1234F", name: "Venkataraghavan Subramaniam Iyer Ramaswamy", consent: true, purpose: long },
    { pan: "ABCPK9992F", name: "Someone Else" },
  ]) {
    const res = await request.post("/v1/identity/pan/verify", { headers, data });
    expect(res.status(), await res.text()).toBe(200);
  }
  const epfo = await request.post("/v1/employment/epfo/verify", { headers, data: { uan: "100200300400", consent: true, purpose: long } });
  expect(epfo.status()).toBe(200);

  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await useMode(page, "sandbox");
  await page.goto("/dashboard/verifications");
  const table = page.getByRole("table", { name: "PAN and EPFO checks, newest first" });
  const row = table.getByRole("row").filter({ hasText: "Venkataraghavan" });
  await expect(row).toBeVisible();
  await page.waitForLoadState("networkidle");
  await expect(page.locator("[data-overflowing]")).toHaveCount(0);
  await expect(page.getByText("More columns to the right: scroll sideways →")).toHaveCount(0);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  // Every row's request or batch link lies wholly inside the window.
  const links = table.locator("tbody tr td:last-child a");
  for (let i = 0; i < (await links.count()); i++) {
    const b = (await links.nth(i).boundingBox())!;
    expect(b.x + b.width, `row ${i + 1}'s link ends past 1280 px`).toBeLessThanOrEqual(1280);
  }
  // The consent stays readable in the row, and the whole purpose is in it (one hover away when cut short).
  await expect(row).toContainText("Given (in the request)");
  await expect(row).toContainText(long);
  await expect(row.getByTitle(long)).toHaveCount(1);
  await shot(page, testInfo, "verifications-consent-1280");
});
