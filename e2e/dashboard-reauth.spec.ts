import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { merchantIdByEmail } from "./helpers/db";

// The acts that hand out a secret or could lock the owner out ask for the password first (as
// Stripe does), and the server refuses them without it; the IP whitelist warns before a range that
// lets strangers in. One merchant, in order.
test.describe.configure({ mode: "serial" });

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");
const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
const merchant = { name: "Sudo Sweets", email: `sudo${stamp}@sweets.example`, password: "sudo-secret-pass" };

function cli(args: string[]) {
  return execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

async function signIn(page: Page, code?: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  if (code === undefined) {
    await page.waitForURL((url) => !url.pathname.startsWith("/login"));
    return;
  }
  await page.getByLabel("Authentication code").fill(code);
  await page.getByRole("button", { name: "Verify and sign in" }).click();
}

const horizontalOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** Full-page screenshots at 1280 and 390 px; at phone width nothing may scroll sideways. */
async function screenshots(page: Page, name: string, testInfo: TestInfo) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: testInfo.outputPath(`${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(100);
  expect(await horizontalOverflow(page), `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: testInfo.outputPath(`${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

const passwordDialog = (page: Page) => page.getByRole("dialog", { name: "Confirm your password" });

async function confirmPassword(page: Page, password = merchant.password) {
  await passwordDialog(page).getByLabel("Password").fill(password);
  await passwordDialog(page).getByRole("button", { name: "Confirm" }).click();
}

/** RFC 6238 code (SHA-1, 30 s, 6 digits) from a base32 key, written here apart from the server's. */
function totpNow(base32Key: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...base32Key.replace(/=+$/, "")].map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0")).join("");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
  const mac = crypto.createHmac("sha1", key).update(counter).digest();
  const at = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(at) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

let recoveryCodes: string[] = [];

test.beforeAll(() => {
  cli(["merchant", "create", "--name", merchant.name, "--email", merchant.email, "--password", merchant.password, "--json"]);
});

test("revealing the signing secret asks for the password; a wrong one says so; the confirmation then covers rotating it", async ({ page }, testInfo) => {
  await signIn(page);
  await page.goto("/dashboard/keys");
  const secret = page.getByLabel(/^Signing secret/);
  await page.getByRole("button", { name: "Reveal" }).click();
  await expect(passwordDialog(page)).toContainText("To reveal the signing secret, enter your account password.");
  await screenshots(page, "reauth-dialog", testInfo);

  await confirmPassword(page, "not-my-password");
  await expect(passwordDialog(page)).toContainText("That password is not right.");
  await expect(secret).toHaveText("whsec_••••••••••••••••");
  await confirmPassword(page);
  await expect(passwordDialog(page)).toHaveCount(0);
  await expect(secret).toHaveText(/^whsec_[A-Za-z0-9]{20,}$/);
  const first = (await secret.textContent())!;

  // Within the 10 minutes the page does not ask again.
  await page.getByRole("button", { name: "Rotate", exact: true }).click();
  await page.getByRole("dialog", { name: "Rotate signing secret" }).getByRole("button", { name: "Rotate secret" }).click();
  await expect(page.getByRole("dialog", { name: "Rotate signing secret" })).toHaveCount(0);
  await expect(passwordDialog(page)).toHaveCount(0);
  await expect(secret).toHaveText(/^whsec_[A-Za-z0-9]{20,}$/);
  expect(await secret.textContent()).not.toBe(first);

  // A new page load holds no confirmation: cancelling the question leaves the secret hidden.
  await page.reload();
  await page.getByRole("button", { name: "Reveal" }).click();
  await passwordDialog(page).getByRole("button", { name: "Cancel" }).click();
  await expect(passwordDialog(page)).toHaveCount(0);
  await expect(secret).toHaveText("whsec_••••••••••••••••");
  await expect(page.getByRole("status").filter({ hasText: /password/i })).toHaveCount(0);
});

test("the server refuses a sensitive act without a confirmation, whatever the page does", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/keys");
  // The page's own tRPC endpoint, called as the page would but without the proof.
  const res = await page.evaluate(async () => {
    const r = await fetch("/api/trpc/keys.revealSigningSecret", {
      method: "POST",
      headers: { "content-type": "application/json", "x-parakh-csrf": "1" },
      body: JSON.stringify({ mode: "sandbox" }),
    });
    return { status: r.status, body: await r.json() };
  });
  expect(res.status).toBe(403);
  expect(res.body.error.data.appCode).toBe("REAUTH_REQUIRED");
  expect(JSON.stringify(res.body)).not.toMatch(/whsec_[A-Za-z0-9]{20,}/);
});

test("a live key asks for the password; a sandbox key does not", async ({ page }) => {
  cli(["merchant", "go-live", "--merchant", merchantIdByEmail(merchant.email)]);
  await signIn(page);
  await page.goto("/dashboard/keys");
  await page.getByRole("button", { name: "Create key" }).first().click();
  await page.getByLabel("Label").fill("Sandbox worker");
  await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("dialog", { name: /key/i });
  await expect(shown.getByText(/^sk_test_/).first()).toBeVisible();
  await shown.getByRole("button", { name: /saved it/i }).click();

  await page.getByRole("radio", { name: /live/i }).click();
  await expect(page.getByText(/No working live keys/i)).toBeVisible();
  await page.getByRole("button", { name: "Create key" }).first().click();
  await page.getByLabel("Label").fill("Production");
  await page.getByRole("dialog", { name: "Create a live key" }).getByRole("button", { name: "Create key" }).click();
  await expect(passwordDialog(page)).toContainText("To create a live key, enter your account password.");
  await confirmPassword(page);
  const live = page.getByRole("dialog", { name: /key/i });
  await expect(live.getByText(/^sk_live_/).first()).toBeVisible();
  await live.getByRole("button", { name: /saved it/i }).click();
  await expect(page.getByRole("heading", { name: "Production" })).toBeVisible();
  await page.getByRole("radio", { name: /sandbox/i }).click();
});

test("turning on two-factor sign-in asks for the password; the recovery codes left count down and new ones replace them", async ({
  page,
  browser,
}, testInfo) => {
  await signIn(page);
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  await expect(passwordDialog(page)).toContainText("To turn on two-factor sign-in, enter your account password.");
  await confirmPassword(page);
  const key = ((await page.getByLabel("Set-up key").textContent()) ?? "").replace(/\s/g, "");
  // A code minted at the very end of a 30 s step may be stale by the time it arrives: wait it out.
  if (Date.now() % 30_000 > 27_000) await page.waitForTimeout(30_000 - (Date.now() % 30_000) + 200);
  await page.getByLabel("Code from your app").fill(totpNow(key));
  await page.getByRole("button", { name: "Turn on" }).click();
  const list = page.getByRole("list", { name: "Recovery codes" });
  await expect(list.getByRole("listitem")).toHaveCount(10);
  recoveryCodes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  await page.getByRole("button", { name: "I have saved them" }).click();
  const left = page.getByTestId("recovery-codes-left");
  await expect(left).toHaveText("10 recovery codes left");

  // Signing in elsewhere with one of them uses it up.
  const other = await browser.newContext();
  try {
    const elsewhere = await other.newPage();
    await signIn(elsewhere, recoveryCodes[0]!);
    await elsewhere.waitForURL(/\/dashboard/);
  } finally {
    await other.close();
  }
  await page.reload();
  await expect(left).toHaveText("9 recovery codes left");

  await page.getByRole("button", { name: "Make new codes" }).click();
  const makeNew = page.getByRole("dialog", { name: "Make new recovery codes" });
  await expect(makeNew).toContainText("Your 9 remaining codes stop working at once");
  await makeNew.getByRole("button", { name: "Make new codes" }).click();
  await expect(passwordDialog(page)).toContainText("To make new recovery codes, enter your account password.");
  await confirmPassword(page);
  await expect(page.getByText("New recovery codes: your earlier codes no longer work.")).toBeVisible();
  const fresh = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  expect(fresh).toHaveLength(10);
  expect(fresh.filter((c) => recoveryCodes.includes(c))).toEqual([]);
  await screenshots(page, "recovery-codes-new", testInfo);
  await page.getByRole("button", { name: "I have saved them" }).click();
  await expect(left).toHaveText("10 recovery codes left");
  await screenshots(page, "recovery-codes-left", testInfo);

  // An old code that was never used no longer signs in.
  const third = await browser.newContext();
  try {
    const elsewhere = await third.newPage();
    await signIn(elsewhere, recoveryCodes[1]!);
    await expect(elsewhere.locator("form").getByRole("alert")).toBeVisible();
    await expect(elsewhere).toHaveURL(/\/login/);
  } finally {
    await third.close();
  }
  recoveryCodes = fresh;
});

test("the whitelist warns before the whole internet or a very wide range, and adds it only when confirmed", async ({ page }, testInfo) => {
  await signIn(page, recoveryCodes[0]);
  await page.waitForURL(/\/dashboard/);
  await page.goto("/dashboard/whitelist");
  const ip = page.getByLabel("IP address or CIDR range");
  const entries = page.getByRole("listitem").filter({ has: page.locator("code") });
  await ip.fill("0.0.0.0/0");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  const warning = page.getByRole("dialog", { name: "Add a very wide range?" });
  await expect(warning).toContainText("0.0.0.0/0 is every IPv4 address on the internet: with it the whitelist keeps nobody out.");
  await screenshots(page, "whitelist-wide-warning", testInfo);
  await warning.getByRole("button", { name: "Cancel" }).click();
  await expect(warning).toHaveCount(0);
  await expect(page.getByText("No addresses yet")).toBeVisible();

  await page.getByRole("button", { name: "Add", exact: true }).click();
  await warning.getByRole("button", { name: "Add 0.0.0.0/0 anyway" }).click();
  await expect(warning).toHaveCount(0);
  await expect(entries.filter({ hasText: "0.0.0.0/0" })).toContainText("Very wide range");

  await ip.fill("10.0.0.0/8");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(warning).toContainText("10.0.0.0/8 covers 1,67,77,216 addresses");
  await warning.getByRole("button", { name: "Cancel" }).click();
  // A narrow range goes straight in, unmarked.
  await ip.fill("203.0.113.0/24");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(entries.filter({ hasText: "203.0.113.0/24" })).toBeVisible();
  await expect(entries.filter({ hasText: "203.0.113.0/24" })).not.toContainText("Very wide range");
  await expect(entries.filter({ hasText: "10.0.0.0/8" })).toHaveCount(0);
  await screenshots(page, "whitelist-wide-entry", testInfo);
});

test("Request logs say the path search ignores capitals, and it does", async ({ page, request }) => {
  const key = JSON.parse(cli(["key", "create", "--merchant", merchantIdByEmail(merchant.email), "--mode", "sandbox", "--json"])) as { secretKey: string };
  const requestId = `e2e_caps_${stamp}`;
  const res = await request.post("/v1/employment/epfo/verify", {
    headers: { Authorization: `Bearer ${key.secretKey}`, "X-Request-Id": requestId },
    data: { uan: "100200300400" },
  });
  expect(res.status()).toBe(200);
  await signIn(page, recoveryCodes[1]);
  await page.waitForURL(/\/dashboard/);
  await page.goto("/dashboard/logs");
  await expect(page.getByText("Path matches text anywhere in the path or query string, capitals or not.")).toBeVisible();
  await page.goto("/dashboard/logs?path=%2FV1%2FEMPLOYMENT");
  await expect(page.getByText(requestId).first()).toBeVisible();
  // This merchant's only verification so far is that EPFO call: the first-day checklist counts it.
  await page.goto("/dashboard");
  const step = page.getByRole("list", { name: "Setup steps" }).getByRole("listitem").filter({ hasText: "Make your first verification call" });
  await expect(step).toContainText("Done:");
});
