import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { apiKeysOf, expireResetLinksOf, merchantIdByEmail, outboxBodiesTo } from "./helpers/db";

// Each test signs up its own merchant, so locks, revoked sessions and suspension never reach the
// demo merchant or another spec's account.

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");

function cli(args: string[]) {
  return execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

interface Merchant {
  name: string;
  email: string;
  password: string;
}

function freshMerchant(tag: string): Merchant {
  const id = `${Date.now()}${Math.random().toString(36).slice(2, 7)}`;
  return { name: `Recovery ${tag}`, email: `${tag}${id}@recovery.example`, password: `first-pass-${id}` };
}

/** Signs up through /signup and leaves the page on the dashboard, signed in. */
async function signUp(page: Page, m: Merchant) {
  await page.goto("/signup");
  await page.getByLabel("Business name").fill(m.name);
  await page.getByLabel("Work email").fill(m.email);
  await page.getByLabel("Password").fill(m.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page
    .getByRole("dialog", { name: "Your sandbox API key" })
    .getByRole("button", { name: /saved it/i })
    .click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** Submits the sign-in form from a freshly loaded /login, so an alert on the page is this attempt's. */
async function submitSignIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

const WRONG = "That email and password do not match an account.";
const PAUSED = /sign-in to this account is paused here for 15 minutes/;

test("locked out by wrong passwords, reset by email, back in with the new password", async ({ page, baseURL }) => {
  const m = freshMerchant("locked");
  await signUp(page, m);
  // Leave the dashboard first: signed out under its feet, it navigates to /login itself, which
  // would abort the test's own navigation there.
  await page.goto("about:blank");
  await page.context().clearCookies();
  const alert = page.locator("form").getByRole("alert");

  await test.step("five wrong passwords pause sign-in and offer a reset", async () => {
    for (let i = 1; i <= 4; i++) {
      await submitSignIn(page, m.email, `wrong-password-${i}`);
      await expect(alert).toHaveText(WRONG);
    }
    await submitSignIn(page, m.email, "wrong-password-5");
    await expect(alert).toContainText(PAUSED);
    // Paused means paused: the right password is refused too.
    await submitSignIn(page, m.email, m.password);
    await expect(alert).toContainText(PAUSED);
    await expect(page).toHaveURL(/\/login$/);
  });

  await test.step("the reset link leads to the forgot-password form, which confirms without saying more", async () => {
    await alert.getByRole("link", { name: "Reset your password" }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await page.getByLabel("Email").fill(m.email);
    await page.getByRole("button", { name: "Email me a reset link" }).click();
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
    await expect(page.getByRole("status")).toContainText(`If ${m.email} belongs to an account, a link to reset its password is on its way.`);
  });

  let link = "";
  await test.step("the email carries a one-time link whose token is in the fragment", async () => {
    const bodies = outboxBodiesTo(m.email);
    expect(bodies).toHaveLength(1);
    link = bodies[0]!.match(/^(\S+\/reset-password#token=\S+)$/m)?.[1] ?? "";
    expect(link, bodies[0]).toMatch(new RegExp(`^${baseURL}/reset-password#token=[A-Za-z0-9_-]{20,}$`));
  });

  await test.step("opening the link hides the token from the address bar", async () => {
    await page.goto(link);
    await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
    await expect(page).toHaveURL(`${baseURL}/reset-password`);
    await expect(page.getByRole("button", { name: "Set new password" })).toBeEnabled();
  });

  const newPassword = `${m.password}-renewed`;
  await test.step("a new password sends the user to sign-in with a notice", async () => {
    await page.getByLabel("New password", { exact: true }).fill(newPassword);
    await page.getByLabel("New password again").fill(newPassword);
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect(page).toHaveURL(/\/login\?notice=reset$/);
    await expect(page.locator("form").getByRole("status")).toHaveText("Your password is reset. Sign in with the new password.");
  });

  await test.step("the lock is gone, the old password is dead, the new one signs in", async () => {
    // "do not match" rather than "paused": the reset lifted this browser's lock.
    await submitSignIn(page, m.email, m.password);
    await expect(alert).toHaveText(WRONG);
    await submitSignIn(page, m.email, newPassword);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  });

  await test.step("the link works once, and says so as soon as it opens again", async () => {
    await page.goto(link);
    await expect(page).toHaveURL(`${baseURL}/reset-password`);
    const alert = page.getByRole("alert").filter({ hasText: "This reset link" });
    await expect(alert).toContainText("This reset link is not valid any more");
    await expect(alert.getByRole("link", { name: "Ask for a new link" })).toBeVisible();
    await expect(page.getByLabel("New password", { exact: true })).toHaveCount(0);
  });
});

const horizontalOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

for (const width of [1280, 390]) {
  test(`an expired reset link says so as soon as it opens, before any password is typed (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 844 });
    const m = freshMerchant(`expired${width}`);
    await signUp(page, m);
    await page.goto("about:blank");
    await page.context().clearCookies();
    await page.goto("/forgot-password");
    await page.getByLabel("Email").fill(m.email);
    await page.getByRole("button", { name: "Email me a reset link" }).click();
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
    const link = outboxBodiesTo(m.email)[0]!.match(/^(\S+\/reset-password#token=\S+)$/m)![1]!;
    expireResetLinksOf(m.email);

    await page.goto(link);
    const alert = page.getByRole("alert").filter({ hasText: "This reset link" });
    await expect(alert).toContainText("This reset link is not valid any more: it expires after 30 minutes and works once.");
    await expect(page.getByLabel("New password", { exact: true })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Set new password" })).toHaveCount(0);
    await alert.getByRole("link", { name: "Ask for a new link" }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  });
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

/** The "Confirm your password" step the dashboard puts before sensitive acts. */
async function confirmPassword(page: Page, password: string) {
  const dialog = page.getByRole("dialog", { name: "Confirm your password" });
  await dialog.getByLabel("Password").fill(password);
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog).toHaveCount(0);
}

for (const width of [1280, 390]) {
  test(`recovery codes can be copied and downloaded as a text file (${width} px)`, async ({ page, context }) => {
    await page.setViewportSize({ width, height: 844 });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const m = freshMerchant(`codes${width}`);
    await signUp(page, m);
    await page.goto("/dashboard/settings");
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    await confirmPassword(page, m.password);
    const key = ((await page.getByLabel("Set-up key").textContent()) ?? "").replace(/\s/g, "");
    // A code minted at the very end of a 30 s step may be stale by the time it arrives: wait it out.
    if (Date.now() % 30_000 > 27_000) await page.waitForTimeout(30_000 - (Date.now() % 30_000) + 200);
    await page.getByLabel("Code from your app").fill(totpNow(key));
    await page.getByRole("button", { name: "Turn on" }).click();

    const list = page.getByRole("list", { name: "Recovery codes" });
    await expect(list.getByRole("listitem").first()).toBeVisible();
    const codes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
    expect(codes.length).toBeGreaterThanOrEqual(8);

    const copy = page.getByRole("button", { name: "Copy codes to clipboard" });
    await copy.click();
    await expect(copy).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join("\n"));

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download (.txt)" }).click()]);
    expect(download.suggestedFilename()).toBe("parakh-recovery-codes.txt");
    const text = fs.readFileSync((await download.path())!, "utf8");
    const lines = text.split("\n");
    for (const c of codes) expect(lines).toContain(c);
    expect(text).toMatch(/recovery codes/i);

    // The card's own controls stay on screen (the settings page's account email is not this test's).
    for (const el of [list, copy, page.getByRole("button", { name: "Download (.txt)" })]) {
      const box = (await el.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
    }
    await page.getByRole("button", { name: "I have saved them" }).click();
    await expect(list).toHaveCount(0);
  });
}

test("setting up two-factor sign-in shows a QR code beside its key", async ({ page }) => {
  const m = freshMerchant("totp");
  await signUp(page, m);
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  await confirmPassword(page, m.password);

  const qr = page.getByRole("img", { name: "QR code to add Parakh to your authenticator app" });
  await expect(qr).toBeVisible();
  await expect(qr).toHaveAttribute("src", /^data:image\/svg\+xml[;,]/);
  // Decoded and drawn (the page's CSP lets data: images through).
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);

  const key = page.getByLabel("Set-up key");
  await expect(key).toHaveText(/^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/);
  // The typed key and the scanned one are the same secret.
  const href = await page.getByRole("link", { name: "this link" }).getAttribute("href");
  expect(href).toMatch(/^otpauth:\/\/totp\//);
  expect(new URL(href!).searchParams.get("secret")).toBe((await key.textContent())!.replace(/\s/g, ""));

  const [qrBox, keyBox] = [await qr.boundingBox(), await key.boundingBox()];
  expect(keyBox!.x).toBeGreaterThanOrEqual(qrBox!.x + qrBox!.width);
  expect(keyBox!.y).toBeLessThan(qrBox!.y + qrBox!.height);
  await expect(page.getByLabel("Code from your app")).toBeVisible();
});

test("sign out everywhere ends the session in another browser too", async ({ page, browser }) => {
  const m = freshMerchant("everywhere");
  await signUp(page, m);
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    await submitSignIn(otherPage, m.email, m.password);
    await expect(otherPage).toHaveURL(/\/dashboard$/);

    await page.goto("/dashboard/settings");
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.getByRole("dialog", { name: "Sign out everywhere?" }).getByRole("button", { name: "Sign out everywhere" }).click();
    await expect(page).toHaveURL(/\/login\?notice=everywhere$/);
    await expect(page.locator("form").getByRole("status")).toHaveText("You are signed out on every device.");

    // The other browser still holds its cookie; the server no longer honours it. An in-app
    // navigation first: rendered from the router's prefetch, the page's data call is refused; not
    // prefetched in time, the server answers with the sign-in page. Either way it says the session
    // ended and no data comes back.
    const [key] = apiKeysOf(merchantIdByEmail(m.email));
    await otherPage
      .getByRole("link", { name: "API keys" })
      .first()
      .click({ timeout: 10_000 })
      .catch((err: unknown) => {
        // The dashboard's own refresh can find the session ended first and open the sign-in page,
        // which says so too: the same outcome, reached before the click.
        if (!/\/login\?next=[^&]*&ended=1$/.test(otherPage.url())) throw err;
      });
    await expect(otherPage.getByText(/session has ended/i).first()).toBeVisible();
    await expect(otherPage.getByText(key!.publicKey)).toHaveCount(0);
    await otherPage.goto("/dashboard");
    await expect(otherPage).toHaveURL(/\/login\?next=%2Fdashboard&ended=1$/);
    await expect(otherPage.locator("form").getByRole("status")).toContainText("Your session has ended");
  } finally {
    await other.close();
  }
});

test("a suspended merchant reads a banner and a read-only dashboard until reinstated", async ({ page }) => {
  const m = freshMerchant("suspended");
  await signUp(page, m);
  const merchantId = merchantIdByEmail(m.email);
  const banner = page.getByRole("alert").filter({ hasText: "This account is suspended." });
  await expect(banner).toHaveCount(0);

  cli(["merchant", "suspend", "--merchant", merchantId]);
  try {
    await page.goto("/dashboard/keys");
    await expect(banner).toBeVisible();
    await expect(banner).toContainText("the dashboard is read-only");
    // Read-only, not locked out: the keys are still listed.
    await expect(page.getByText(apiKeysOf(merchantId)[0]!.publicKey, { exact: true })).toBeVisible();

    await page.getByRole("button", { name: "Create key" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Create a sandbox key" });
    await dialog.getByLabel("Label").fill("While suspended");
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expect(dialog.getByRole("alert")).toHaveText("This account is suspended, so the dashboard is read-only. Contact support to have it reinstated.");
    expect(apiKeysOf(merchantId)).toHaveLength(1);
    await dialog.getByRole("button", { name: "Cancel" }).click();
  } finally {
    cli(["merchant", "reinstate", "--merchant", merchantId]);
  }

  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(banner).toHaveCount(0);
  await page.getByRole("button", { name: "Create key" }).first().click();
  await page.getByRole("dialog", { name: "Create a sandbox key" }).getByLabel("Label").fill("After reinstatement");
  await page.getByRole("dialog", { name: "Create a sandbox key" }).getByRole("button", { name: "Create key" }).click();
  await page
    .getByRole("dialog", { name: /key/i })
    .getByRole("button", { name: /saved it/i })
    .click();
  await expect(page.getByRole("heading", { name: "After reinstatement" })).toBeVisible();
  expect(apiKeysOf(merchantId)).toHaveLength(2);
});
