import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { signUpThroughForm } from "./helpers/sign-up";

// One merchant's wallet and KYC pages, in order: test funds, a KYC call and its ledger entry, the
// low-balance alert, the KYC list and detail (masked until asked), an operator's fee change and
// credit, and live mode's top-up notice; at desktop and phone width.
test.describe.configure({ mode: "serial" });

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");
const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
const merchant = { name: "Wallet Wala", email: `wallet${stamp}@kyc.example`, password: "wallet-secret-pass" };
const admin = { email: `walletops${stamp}@parakh.example`, password: "operator-pass-123" };
const keys = { merchantId: "", publicKey: "", secretKey: "" };

function cli(args: string[]) {
  return execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

async function signIn(page: Page, email: string, password: string, asAdmin = false) {
  await page.goto(asAdmin ? "/login?as=admin" : "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

/** A KYC call as a merchant's server makes it: keys in headers, no Origin. */
async function kycCall(request: APIRequestContext, pathName: string, body: Record<string, unknown>) {
  const res = await request.post(pathName, {
    headers: { "x-api-key": keys.publicKey, "x-api-secret": keys.secretKey },
    data: { merchantId: keys.merchantId, ...body },
  });
  const json = await res.json();
  expect(res.status(), JSON.stringify(json)).toBe(200);
  return json.data as Record<string, any>;
}

const horizontalOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** Full-page screenshots at 1280 and 390 px; at phone width nothing may scroll sideways. */
async function screenshots(page: Page, name: string, testInfo: TestInfo) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: testInfo.outputPath(`${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(100);
  expect(await horizontalOverflow(page), `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: testInfo.outputPath(`${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

const ledger = (page: Page) => page.getByRole("table", { name: "Ledger entries, newest first" });

test("sign up: the sandbox wallet starts with ₹10,000 of test credit", async ({ page }) => {
  const { dialog: shown, ...signedUp } = await signUpThroughForm(page, merchant);
  Object.assign(keys, signedUp);
  await shown.getByRole("button", { name: /saved it/i }).click();

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Wallet" }).click();
  await expect(page).toHaveURL(/\/dashboard\/wallet$/);
  await expect(page).toHaveTitle("Wallet · Parakh");
  await expect(page.getByTestId("wallet-balance")).toHaveText("₹10,000.00");
  const fees = page.getByRole("list", { name: "Fee per KYC call" });
  await expect(fees).toContainText("Aadhaar OTP KYC₹3.00");
  await expect(fees).toContainText("PAN KYC₹1.00");
  await expect(fees).toContainText("Bank account KYC₹2.00");
  await expect(ledger(page).getByRole("row")).toHaveCount(2);
  await expect(ledger(page)).toContainText("Opening sandbox credit");
});

test("add test funds, then a PAN KYC call shows in the ledger; filters and CSV", async ({ page, request }, testInfo) => {
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/wallet");

  await test.step("test funds are bounded and land in the ledger", async () => {
    await page.getByLabel("Amount (₹)").fill("200000");
    await page.getByRole("button", { name: "Add test funds" }).click();
    await expect(page.getByText("Enter ₹1.00 to ₹1,00,000.00")).toBeVisible();
    await expect(page.getByLabel("Amount (₹)")).toHaveValue("200000");
    await page.getByLabel("Amount (₹)").fill("2,500");
    await page.getByRole("button", { name: "Add test funds" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Added ₹2,500.00 of test funds" })).toBeVisible();
    // Cleared after success; a refused amount (above) stays for correcting.
    await expect(page.getByLabel("Amount (₹)")).toHaveValue("");
    await expect(page.getByTestId("wallet-balance")).toHaveText("₹12,500.00");
    await expect(ledger(page).getByRole("row").nth(1)).toContainText("Test funds");
    await expect(ledger(page).getByRole("row").nth(1)).toContainText("+₹2,500.00");
  });

  let txn = "";
  await test.step("a PAN KYC call over the API is charged and shows as a ledger entry", async () => {
    const data = await kycCall(request, "/api/kyc/pan/verify", { pan: "ABCPK1234F" });
    expect(data.charge).toEqual({ amount: "1.00", currency: "INR" });
    expect(data.walletBalance).toBe("12499.00");
    txn = data.kycTransactionId;
    await page.getByRole("button", { name: "Refresh" }).click();
    const row = ledger(page).getByRole("row").nth(1);
    await expect(row).toContainText("PAN KYC");
    await expect(row).toContainText("−₹1.00");
    await expect(row).toContainText("₹12,499.00");
    await expect(row.getByRole("link", { name: txn })).toBeVisible();
    await page.reload();
    await expect(page.getByTestId("wallet-balance")).toHaveText("₹12,499.00");
  });

  await test.step("filters live in the URL, and the CSV has the same rows", async () => {
    await page.getByLabel("Entry type").selectOption("debits");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/[?&]type=debits/);
    await expect(ledger(page).getByRole("row")).toHaveCount(2);
    await expect(ledger(page)).toContainText("PAN KYC");
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download CSV" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^wallet-ledger-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync(await file.path(), "utf8").replace(/^\uFEFF/, "");
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("entry_id,created_at,reason,credit,debit,balance_after,currency,reference,mode");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`,KYC_PAN,,1.00,12499.00,INR,${txn},sandbox`);
    await screenshots(page, "wallet-filtered", testInfo);
    await page.getByRole("button", { name: "Clear filters" }).first().click();
    await expect(page).toHaveURL(/\/dashboard\/wallet$/);
    await expect(ledger(page).getByRole("row")).toHaveCount(4);
  });
});

test("a low-balance threshold: set, sent once on the next charge, turned off", async ({ page, request }) => {
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/wallet");
  const state = page.getByTestId("low-balance-state");
  await expect(state).toHaveText("Off: no alert is sent.");
  await expect(page.getByText("wallet.low_balance").first()).toBeVisible();
  const field = page.getByLabel("Alert when the balance falls below (₹)");
  await field.fill("0");
  await page.getByRole("button", { name: "Save threshold" }).click();
  await expect(page.getByText("Enter ₹1.00 to ₹1,00,00,000.00")).toBeVisible();
  await field.fill("12600");
  await page.getByRole("button", { name: "Save threshold" }).click();
  await expect(state).toHaveText("Below ₹12,600.00: the next charge sends the alert.");
  await page.reload();
  await expect(field).toHaveValue("12600.00");

  // With a name: the KYC list shows its score with the band, as Verifications does.
  await kycCall(request, "/api/kyc/pan/verify", { pan: "ABCPK1234F", name: "Someone Else" });
  await expect(async () => {
    await page.reload();
    await expect(state).toHaveText("Below ₹12,600.00: the alert for this dip has been sent.", { timeout: 1000 });
  }).toPass({ timeout: 10_000 });

  await page.getByRole("button", { name: "Turn off" }).click();
  await expect(state).toHaveText("Off: no alert is sent.");
  await expect(field).toHaveValue("");
});

test("KYC list and detail show masked values until “Show full result”", async ({ page, request }, testInfo) => {
  const aadhaar = await test.step("an Aadhaar OTP KYC call", async () => {
    const sent = await kycCall(request, "/api/kyc/aadhaar/generate-otp", { aadhaarNumber: "234567890009" });
    return kycCall(request, "/api/kyc/aadhaar/verify-otp", { aadhaarNumber: "234567890009", otp: "123456", requestId: sent.requestId });
  });
  await signIn(page, merchant.email, merchant.password);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "KYC" }).click();
  await expect(page).toHaveURL(/\/dashboard\/kyc$/);
  await expect(page).toHaveTitle("KYC · Parakh");
  const table = page.getByRole("table", { name: "KYC transactions, newest first" });
  await expect(table.getByRole("row")).toHaveCount(4);
  const first = table.getByRole("row").nth(1);
  await expect(first).toContainText("Aadhaar OTP KYC");
  await expect(first).toContainText("XXXXXXXX0009");
  await expect(first).toContainText("Verified");
  await expect(first).toContainText("₹3.00");
  await expect(table.getByRole("row").nth(2)).toContainText("ABCPKXXXXF");
  await expect(table.getByRole("row").nth(2)).toContainText(/\d+\.\d\d\s*No match/);
  const body = () => page.locator("body").innerText();
  for (const secret of ["ABCPK1234F", "234567890009", aadhaar.name, aadhaar.fullAddress]) expect(await body()).not.toContain(secret);

  await page.getByLabel("KYC type").selectOption("PAN");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/[?&]kind=PAN/);
  await expect(table.getByRole("row")).toHaveCount(3);
  await screenshots(page, "kyc-list", testInfo);
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(table.getByRole("row")).toHaveCount(4);

  await first.getByRole("link", { name: "XXXXXXXX0009" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/kyc/${aadhaar.kycTransactionId}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Aadhaar OTP KYC" })).toBeVisible();
  const summary = page.locator("section", { hasText: "Summary" }).first();
  await expect(summary).toContainText("XXXXXXXX0009");
  await expect(page.getByText("₹3.00", { exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: /^req_/ })).toBeVisible();
  for (const secret of [aadhaar.name, aadhaar.fullAddress, aadhaar.address.house]) expect(await body()).not.toContain(secret);
  await expect(page.getByRole("img", { name: "Photo on the Aadhaar record" })).toHaveCount(0);
  await screenshots(page, "kyc-detail-masked", testInfo);

  await page.getByRole("button", { name: "Show full result" }).click();
  const full = page.getByTestId("kyc-full-result");
  await expect(full).toContainText(aadhaar.name);
  await expect(full).toContainText(aadhaar.fullAddress);
  const photo = page.getByRole("img", { name: "Photo on the Aadhaar record" });
  await expect(photo).toBeVisible();
  expect(await photo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  await screenshots(page, "kyc-detail-full", testInfo);
  await page.getByRole("button", { name: "Hide full result" }).click();
  await expect(full).toHaveCount(0);
  expect(await body()).not.toContain(aadhaar.fullAddress);

  await page.getByRole("link", { name: /^req_/ }).click();
  await expect(page).toHaveURL(/\/dashboard\/logs\/req_/);
  await expect(page.getByText("/api/kyc/aadhaar/verify-otp").first()).toBeVisible();
});

test("an operator changes a fee and credits the wallet; the next call is charged the new fee", async ({ browser, request }, testInfo) => {
  cli(["admin", "create", "--email", admin.email, "--password", admin.password]);
  const ops = await browser.newPage();
  await signIn(ops, admin.email, admin.password, true);
  await ops.goto(`/admin/merchants/${keys.merchantId}`);
  await expect(ops.getByRole("heading", { level: 1, name: merchant.name })).toBeVisible();

  const fees = ops.getByRole("form", { name: "KYC fees" });
  await expect(fees.getByLabel("PAN KYC (₹)")).toHaveValue("1.00");
  await fees.getByLabel("PAN KYC (₹)").fill("2.5");
  await fees.getByRole("button", { name: "Save fees" }).click();
  await expect(ops.getByRole("status").filter({ hasText: "PAN ₹2.50" })).toBeVisible();
  await expect(fees.getByLabel("PAN KYC (₹)")).toHaveValue("2.50");

  const adjust = ops.getByRole("form", { name: "Credit or debit wallet" });
  await adjust.getByRole("button", { name: "Credit wallet" }).click();
  await expect(adjust.getByText("Give a reason of at least 3 characters")).toBeVisible();
  await adjust.getByLabel("Amount (₹)").fill("100");
  await adjust.getByLabel("Reason").fill("Goodwill for the outage");
  await adjust.getByRole("button", { name: "Credit wallet" }).click();
  const confirm = ops.getByRole("dialog", { name: `Credit ${merchant.name}'s sandbox wallet?` });
  await expect(confirm).toContainText("₹100.00");
  await confirm.getByRole("button", { name: "Confirm credit" }).click();
  await expect(ops.getByRole("status").filter({ hasText: "Credited ₹100.00" })).toBeVisible();
  const history = ops.locator("section", { hasText: "Operator history" });
  // The feed has a phone list and a desktop table; only one of them is shown.
  const shown = (text: string) => history.getByText(text).filter({ visible: true }).first();
  await expect(shown("Wallet credit")).toBeVisible();
  await expect(shown("sandbox credit ₹100.00: Goodwill for the outage")).toBeVisible();
  await expect(shown("KYC fees")).toBeVisible();
  await expect(shown("PAN ₹1.00 → ₹2.50")).toBeVisible();
  await screenshots(ops, "admin-merchant-wallet", testInfo);

  // The API charges new fees within a second.
  await ops.waitForTimeout(1500);
  const data = await kycCall(request, "/api/kyc/pan/verify", { pan: "ABCPK1234F" });
  expect(data.charge).toEqual({ amount: "2.50", currency: "INR" });

  const page = await browser.newPage();
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/wallet");
  await expect(page.getByRole("list", { name: "Fee per KYC call" })).toContainText("PAN KYC₹2.50");
  await expect(ledger(page).getByRole("row").nth(1)).toContainText("−₹2.50");
  await expect(ledger(page).getByRole("row").nth(2)).toContainText("Credit by Parakh");
  await expect(ledger(page).getByRole("row").nth(2)).toContainText("Goodwill for the outage");
  await screenshots(page, "wallet", testInfo);
  await page.close();

  // Live mode: approved by the operator, and no fake top-up button.
  await ops.getByRole("button", { name: "Approve go-live" }).click();
  await ops.getByRole("dialog").getByRole("button", { name: "Approve go-live" }).click();
  await expect(ops.getByText(/Live since/).first()).toBeVisible();
  await ops.close();
});

test("live mode: no test funds, and top-up waits for a live payment processor", async ({ page }, testInfo) => {
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/wallet");
  await page.getByRole("radio", { name: /live/i }).click();
  await expect(page.getByRole("radio", { name: /live/i })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByText("Live top-up through the hosted checkout needs a live payment processor, which is not configured yet")).toBeVisible();
  await expect(page.getByRole("button", { name: "Add test funds" })).toHaveCount(0);
  await expect(page.getByTestId("wallet-balance")).toHaveText("₹0.00");
  await screenshots(page, "wallet-live", testInfo);
  await page.getByRole("radio", { name: /sandbox/i }).click();
});

test("phone width: the wallet ledger and KYC list collapse into lists, and the overview counts KYC calls", async ({ page }, testInfo) => {
  await signIn(page, merchant.email, merchant.password);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard/wallet");
  await expect(page.getByRole("list", { name: "Ledger entries, newest first" })).toBeVisible();
  await expect(ledger(page)).toBeHidden();
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await page.getByRole("button", { name: "Filters", exact: true }).click();
  await expect(page.getByLabel("Entry type")).toBeVisible();

  const balanceBefore = await page.getByTestId("wallet-balance").textContent();
  await page.getByLabel("Amount (₹)").fill("1");
  await page.getByRole("button", { name: "Add test funds" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Added ₹1.00 of test funds" })).toBeVisible();
  await expect(page.getByLabel("Amount (₹)")).toHaveValue("");
  await expect(page.getByTestId("wallet-balance")).not.toHaveText(balanceBefore!);

  await page.goto("/dashboard/kyc");
  const list = page.getByRole("list", { name: "KYC transactions, newest first" });
  await expect(list).toBeVisible();
  await expect(page.getByRole("table", { name: "KYC transactions, newest first" })).toBeHidden();
  await list.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/dashboard\/kyc\/kyc_txn_/);
  await expect(page.getByRole("button", { name: "Show full result" })).toBeVisible();
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/dashboard");
  const kyc = page.getByRole("region", { name: "Key numbers" }).getByText("KYC calls today").locator("..");
  await expect(kyc).toContainText("4 in 7 days · ₹7.50 in fees");
  await screenshots(page, "overview", testInfo);
});
