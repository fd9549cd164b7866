import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

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

test("sign up lands in a sandbox dashboard", async ({ page }) => {
  await page.goto("/signup");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Business name must be at least 2 characters")).toBeVisible();
  await page.getByLabel("Business name").fill(merchant.name);
  await page.getByLabel("Work email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("radio", { name: /sandbox/i })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByRole("radio", { name: /live/i })).toBeDisabled();
});

test("create a key, call the API with it and find the call in Request logs", async ({ page, request }, testInfo) => {
  await signIn(page, merchant.email, merchant.password);
  await page.goto("/dashboard/keys");
  await page.getByRole("button", { name: "Create key" }).first().click();
  await page.getByLabel("Label").fill("E2E key");
  await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("dialog", { name: /key/i });
  secretKey = (await shown.getByText(/^sk_test_/).first().textContent())!.trim();
  expect(secretKey).toMatch(/^sk_test_[A-Za-z0-9]+$/);
  await shown.getByRole("button", { name: /saved it/i }).click();
  await expect(page.getByText("E2E key")).toBeVisible();

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
  const newSecret = (await shown.getByText(/^sk_test_/).first().textContent())!.trim();
  await shown.getByRole("button", { name: /saved it/i }).click();
  await expect
    .poll(async () => (await request.post("/v1/identity/pan/verify", { headers: { Authorization: `Bearer ${secretKey}` }, data: { pan: "ABCPK1234F" } })).status(), { timeout: 5_000 })
    .toBe(401);
  const fresh = await request.post("/v1/identity/pan/verify", { headers: { Authorization: `Bearer ${newSecret}` }, data: { pan: "ABCPK1234F" } });
  expect(fresh.status()).toBe(200);
  secretKey = newSecret;
});

test("sign out and back in; request go-live", async ({ page }) => {
  await signIn(page, merchant.email, merchant.password);
  await expect(page).toHaveURL(/\/dashboard/);
  await page.getByRole("button", { name: "Sign out" }).click();
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
  await ops.getByRole("link", { name: merchant.name }).first().click();
  await ops.getByRole("button", { name: /approve go-live/i }).first().click();
  await ops.getByRole("dialog").getByRole("button", { name: /approve/i }).click();
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
  for (const [name, url] of [
    ["overview", "/dashboard"],
    ["verifications", "/dashboard/verifications"],
    ["logs", "/dashboard/logs"],
    ["keys", "/dashboard/keys"],
    ["whitelist", "/dashboard/whitelist"],
    ["settings", "/dashboard/settings"],
  ] as const) {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.waitForLoadState("networkidle");
    await screenshots(page, name, testInfo);
  }
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/login/);
  await screenshots(page, "login", testInfo);
});

test("repeated wrong passwords lock the account with a clear message", async ({ page }) => {
  for (let i = 0; i < 5; i++) await signIn(page, merchant.email, "not-the-password", { expectFailure: true });
  await expect(page.locator("form").getByRole("alert")).toContainText(/locked/i);
  await signIn(page, merchant.email, merchant.password, { expectFailure: true });
  await expect(page.locator("form").getByRole("alert")).toContainText(/locked/i);
});
