import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { apiKeysOf, merchantIdByEmail, whitelistEntryCreatedAt } from "./helpers/db";
import { startRedirectReceiver } from "./helpers/redirect-receiver";

// One merchant's whole first day, in order: the steps share the account they create.
test.describe.configure({ mode: "serial" });

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");
const stamp = Date.now();
const merchant = { name: "Kirana Express", email: `owner${stamp}@kirana.example`, password: "kirana-secret-pass" };
const admin = { email: `ops${stamp}@parakh.example`, password: "operator-pass-123" };
let secretKey = "";
const requestId = `e2e_${stamp}`;

function cli(args: string[]) {
  return execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

async function signIn(page: Page, email: string, password: string, opts: { asAdmin?: boolean; expectFailure?: boolean } = {}) {
  await page.goto(opts.asAdmin ? "/login?as=admin" : "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: /sign in/i }).click();
  if (opts.expectFailure) await expect(page.locator("form").getByRole("alert")).toBeVisible();
  else await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

/** "23 Nov 2026, 17:04:09 IST" as a pattern, worked out without the browser's clock or zone (IST is UTC+5:30 all year). */
function istPattern(at: Date): RegExp {
  const ist = new Date(at.getTime() + 330 * 60_000);
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const time = ist.toISOString().slice(11, 19);
  return new RegExp(`${ist.getUTCDate()} ${months[ist.getUTCMonth()]}\\w* ${ist.getUTCFullYear()}, ${time} IST`);
}

/** How far the page scrolls sideways (0 when it fits the window). */
const horizontalOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

async function screenshots(page: Page, name: string, testInfo: import("@playwright/test").TestInfo) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: testInfo.outputPath(`${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: testInfo.outputPath(`${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("signed-out visits to the dashboard and /admin go to /login", async ({ page }) => {
  await page.goto("/dashboard/keys");
  await expect(page).toHaveURL(/\/login\?next=/);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/login\?next=%2Fadmin&as=admin/);
});

test("sign-up shows the sandbox secret once, and it makes the first PAN call", async ({ page, request }, testInfo) => {
  await page.goto("/signup");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Business name must be at least 2 characters")).toBeVisible();
  await page.getByLabel("Business name").fill(merchant.name);
  await page.getByLabel("Work email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: "Create account" }).click();

  const shown = page.getByRole("dialog", { name: "Your sandbox API key" });
  await expect(shown).toBeVisible();
  const merchantId = merchantIdByEmail(merchant.email);
  const [key] = apiKeysOf(merchantId);
  await expect(shown.getByText(merchantId, { exact: true })).toBeVisible();
  await expect(shown.getByText(key!.publicKey, { exact: true })).toBeVisible();
  const shownSecret = (await shown.getByText(/^sk_test_/).textContent())!.trim();
  expect(shownSecret).toMatch(/^sk_test_[A-Za-z0-9]+$/);
  // The first call, ready to paste, with this very secret.
  await expect(shown.getByLabel("First API call with this key")).toContainText(`Authorization: Bearer ${shownSecret}`);

  await screenshots(page, "signup-secret", testInfo);
  // Escape does not lose the secret: only "I've saved it" leaves.
  await page.keyboard.press("Escape");
  await expect(shown).toBeVisible();
  await expect(page).toHaveURL(/\/signup$/);
  await shown.getByRole("button", { name: /saved it/i }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("radio", { name: /sandbox/i })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByRole("radio", { name: /live/i })).toBeDisabled();

  const res = await request.post("/v1/identity/pan/verify", {
    headers: { Authorization: `Bearer ${shownSecret}` },
    data: { pan: "ABCPK1234F", name: "Arjun Kapoor" },
  });
  const body = await res.json();
  expect(res.status(), JSON.stringify(body)).toBe(200);
  expect(body.data).toMatchObject({ pan: "ABCPK1234F", status: "VALID", name_match_result: "MATCH" });
  // No second key was needed.
  expect(apiKeysOf(merchantId)).toHaveLength(1);
});

test("the API keys page shows the merchant id and a ready call per API family", async ({ page }) => {
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/keys");
  const merchantId = merchantIdByEmail(merchant.email);
  const [key] = apiKeysOf(merchantId);
  const examples = page.locator("section").filter({ has: page.getByRole("heading", { name: "Call the API" }) });
  await expect(examples.getByText(merchantId, { exact: true })).toBeVisible();
  const commands = examples.locator("pre");
  await expect(commands).toHaveCount(3);
  const origin = new URL(page.url()).origin;
  await expect(commands.nth(0)).toContainText(`curl ${origin}/v1/identity/pan/verify`);
  await expect(commands.nth(0)).toContainText('-H "Authorization: Bearer $PARAKH_SECRET_KEY"');
  await expect(commands.nth(1)).toContainText(`curl ${origin}/api/checkout`);
  await expect(commands.nth(1)).toContainText(`-H "x-merchant-id: ${merchantId}"`);
  await expect(commands.nth(1)).toContainText(`-H "x-api-key: ${key!.publicKey}"`);
  await expect(commands.nth(1)).toContainText('-H "x-secret-key: $PARAKH_SECRET_KEY"');
  await expect(commands.nth(2)).toContainText(`curl ${origin}/api/kyc/pan/verify`);
  await expect(commands.nth(2)).toContainText(`-H "x-api-key: ${key!.publicKey}"`);
  await expect(commands.nth(2)).toContainText('-H "x-api-secret: $PARAKH_SECRET_KEY"');
  await expect(commands.nth(2)).toContainText(`"merchantId":"${merchantId}"`);
  // After creation the secret is never on the page again.
  await expect(page.getByText(/sk_test_[A-Za-z0-9]{20,}/)).toHaveCount(0);
  await expect(examples.getByRole("button", { name: "Copy /v1 command to clipboard" })).toBeVisible();
});

test("create a key, call the API with it and find the call in Request logs", async ({ page, request }, testInfo) => {
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/keys");
  await page.getByRole("button", { name: "Create key" }).first().click();
  await page.getByLabel("Label").fill("E2E key");
  await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("dialog", { name: /key/i });
  secretKey = (await shown
    .getByText(/^sk_test_/)
    .first()
    .textContent())!.trim();
  expect(secretKey).toMatch(/^sk_test_[A-Za-z0-9]+$/);
  await expect(shown.getByLabel("First API call with this key")).toContainText(`Authorization: Bearer ${secretKey}`);
  await shown.getByRole("button", { name: /saved it/i }).click();
  await expect(page.getByRole("heading", { name: "E2E key" })).toBeVisible();

  const res = await request.post("/v1/identity/pan/verify", {
    headers: { Authorization: `Bearer ${secretKey}`, "X-Request-Id": requestId },
    data: { pan: "ABCPK1234F", name: "Arjun Kapoor" },
  });
  expect(res.status()).toBe(200);
  expect(res.headers()["x-request-id"]).toBe(requestId);

  await page.goto(`/dashboard/logs?requestId=${requestId}`);
  await expect(page.getByText(requestId).first()).toBeVisible();
  await expect(page.getByText("/v1/identity/pan/verify").first()).toBeVisible();
  await page.getByText(requestId).first().click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/logs/${requestId}`));
  await expect(page.getByText("ABCPK1234F").first()).toBeVisible();
  await screenshots(page, "log-detail", testInfo);
});

test("whitelist an address, then rotate the key and see the old one refused", async ({ page, request }) => {
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/whitelist");
  await page.getByLabel("IP address or CIDR range").fill("203.0.113.0/24");
  await page.getByLabel("Label (optional)").fill("Office");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("203.0.113.0/24").first()).toBeVisible();
  await page.getByLabel("IP address or CIDR range").fill("10.0.0.5/8");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText(/host bits|not an IPv4|range/i).first()).toBeVisible();

  await page.goto("/dashboard/keys");
  await page.getByRole("button", { name: "Rotate E2E key" }).click();
  await page.getByText("Stop now").click();
  await page.getByRole("dialog").getByRole("button", { name: "Rotate key" }).click();
  const shown = page.getByRole("dialog", { name: /key/i });
  const newSecret = (await shown
    .getByText(/^sk_test_/)
    .first()
    .textContent())!.trim();
  await shown.getByRole("button", { name: /saved it/i }).click();
  await expect
    .poll(
      async () => (await request.post("/v1/identity/pan/verify", { headers: { Authorization: `Bearer ${secretKey}` }, data: { pan: "ABCPK1234F" } })).status(),
      { timeout: 5_000 },
    )
    .toBe(401);
  const fresh = await request.post("/v1/identity/pan/verify", { headers: { Authorization: `Bearer ${newSecret}` }, data: { pan: "ABCPK1234F" } });
  expect(fresh.status()).toBe(200);
  secretKey = newSecret;
});

test.describe("in a browser far from India", () => {
  test.use({ timezoneId: "America/New_York" });

  test("keys and whitelist show IST times, like the rest of the dashboard", async ({ page }) => {
    await signIn(page, merchant.email, merchant.password);
    const merchantId = merchantIdByEmail(merchant.email);
    await page.goto("/dashboard/keys");
    const newest = apiKeysOf(merchantId)[0]!;
    await expect(page.getByText(new RegExp(`^Created ${istPattern(newest.createdAt).source}$`)).first()).toBeVisible();
    await expect(page.getByText(/\d:\d\d\s?(am|pm)\b/i)).toHaveCount(0);

    await page.goto("/dashboard/whitelist");
    await expect(page.getByText(new RegExp(`Added ${istPattern(whitelistEntryCreatedAt(merchantId, "203.0.113.0/24")).source}$`)).first()).toBeVisible();
    await expect(page.getByText(/\d:\d\d\s?(am|pm)\b/i)).toHaveCount(0);
  });
});

test("the overview fits 390 px after the window narrows from desktop", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard");
  await expect(page.getByRole("img", { name: /^Calls per IST day/ })).toBeVisible();
  await expect(page.getByRole("img", { name: /^Latency per IST day/ })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => horizontalOverflow(page)).toBeLessThanOrEqual(0);
  // And back: the charts grow with the window again.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect.poll(async () => (await page.getByRole("img", { name: /^Calls per IST day/ }).boundingBox())?.width ?? 0).toBeGreaterThan(300);
});

test("a new webhook endpoint is sent every event unless the merchant narrows it", async ({ page }) => {
  await signIn(page, merchant.email, merchant.password);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto("/dashboard/webhooks");
    await page.getByRole("button", { name: "Add endpoint" }).first().click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByRole("checkbox", { name: /All events/ })).toBeChecked();
    await expect(dialog.getByRole("checkbox", { name: /payment\.expired/ })).toBeDisabled();
    if (width === 390) {
      await dialog.getByRole("button", { name: "Cancel" }).click();
      continue;
    }
    // A loopback stand-in of the test's own: whatever the server delivers reaches nothing else.
    const hooks = await startRedirectReceiver();
    await dialog.getByLabel("Endpoint URL").fill(`${hooks.origin}/hooks/every-event`);
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    const row = page.getByRole("listitem").filter({ hasText: `${new URL(hooks.origin).host}/hooks/every-event` });
    await expect(row.getByText("All events")).toBeVisible();
    await hooks.close();
  }
});

test("sign out and back in; request go-live", async ({ page }) => {
  await signIn(page, merchant.email, merchant.password);
  await expect(page).toHaveURL(/\/dashboard/);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login/);
  await signIn(page, merchant.email, merchant.password);
  await expect(page).toHaveURL(/\/dashboard/);
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Request go-live" }).click();
  await expect(page.getByText(/Requested/).first()).toBeVisible();
});

test("an operator approves go-live and Live mode unlocks", async ({ browser }) => {
  cli(["admin", "create", "--email", admin.email, "--password", admin.password]);
  const ops = await browser.newPage();
  await signIn(ops, admin.email, admin.password, { asAdmin: true });
  await expect(ops).toHaveURL(/\/admin/);
  // The e2e server runs without a live vendor: the upstream panel says so instead of listing families.
  await expect(ops.getByText("Live verification is not configured")).toBeVisible();
  await ops.getByRole("link", { name: merchant.name }).first().click();
  await ops
    .getByRole("button", { name: /approve go-live/i })
    .first()
    .click();
  await ops
    .getByRole("dialog")
    .getByRole("button", { name: /approve/i })
    .click();
  await expect(ops.getByText(/live since|approved/i).first()).toBeVisible();
  await ops.close();

  const page = await browser.newPage();
  await signIn(page, merchant.email, merchant.password);
  await expect(page).toHaveURL(/\/dashboard/);
  const live = page.getByRole("radio", { name: /live/i });
  await expect(live).toBeEnabled();
  await live.click();
  await expect(live).toHaveAttribute("aria-checked", "true");
  await page.goto("/dashboard/keys");
  await expect(page.getByText(/No working live keys/i)).toBeVisible();
  await page.close();
});

test("every dashboard page at desktop and phone width", async ({ page }, testInfo) => {
  await signIn(page, merchant.email, merchant.password);
  await expect(page).toHaveURL(/\/dashboard/);
  for (const [name, url, title] of [
    ["overview", "/dashboard", "Overview · Parakh"],
    ["payments", "/dashboard/payments", "Payments · Parakh"],
    ["verifications", "/dashboard/verifications", "Verifications · Parakh"],
    ["logs", "/dashboard/logs", "Request logs · Parakh"],
    ["keys", "/dashboard/keys", "API keys · Parakh"],
    ["whitelist", "/dashboard/whitelist", "IP whitelist · Parakh"],
    ["webhooks", "/dashboard/webhooks", "Webhooks · Parakh"],
    ["settings", "/dashboard/settings", "Settings · Parakh"],
  ] as const) {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page).toHaveTitle(title);
    await page.waitForLoadState("networkidle");
    await screenshots(page, name, testInfo);
  }
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.waitForURL(/\/login/);
  await screenshots(page, "login", testInfo);
});

test("every page has an icon that loads", async ({ page, request }) => {
  const ico = await request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toMatch(/^image\//);
  for (const url of ["/", "/login", "/signup", "/docs"]) {
    await page.goto(url);
    const hrefs = await page.locator('link[rel~="icon"]').evaluateAll((links) => links.map((l) => (l as HTMLLinkElement).href));
    expect(hrefs.length, url).toBeGreaterThan(0);
    for (const href of hrefs) expect((await request.get(href)).status(), href).toBe(200);
  }
});

test("repeated wrong passwords lock the account with a clear message", async ({ page }) => {
  // The lock is per account and device; its message says "paused" and offers a reset.
  for (let i = 0; i < 5; i++) await signIn(page, merchant.email, "not-the-password", { expectFailure: true });
  await expect(page.locator("form").getByRole("alert")).toContainText(/paused|locked/i);
  await signIn(page, merchant.email, merchant.password, { expectFailure: true });
  await expect(page.locator("form").getByRole("alert")).toContainText(/paused|locked/i);
});
