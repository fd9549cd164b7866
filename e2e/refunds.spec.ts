import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { csvRows } from "../tests/helpers/csv";
import { startWebhookReceiver } from "../tests/helpers/webhook-receiver";
import { addWebhookEndpoint } from "./helpers/db";

// Refunds from the merchant's side: a partial refund from the payment page reaches the merchant's
// webhook endpoint signed and shows PROCESSED; a late success on an abandoned attempt is refunded
// automatically and shows in the payment's timeline and the Refunds list. Payments are made over
// HTTP with the merchant's keys and the sandbox simulation API.
test.describe.configure({ mode: "serial" });

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");
const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
const owner = { name: "Refund Rasoi", email: `refunds${stamp}@rasoi.example`, password: "refunds-secret-pass" };

interface Created {
  merchantId: string;
  sandbox: { publicKey: string; secretKey: string; signingSecret: string };
}
let merchant: Created;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

function cli(args: string[]) {
  return execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

const headers = () => ({ "x-merchant-id": merchant.merchantId, "x-api-key": merchant.sandbox.publicKey, "x-secret-key": merchant.sandbox.secretKey });

async function post(request: APIRequestContext, url: string, data: unknown) {
  const res = await request.post(url, { headers: headers(), data });
  const json = await res.json();
  expect(res.status(), `${url} ${JSON.stringify(json)}`).toBe(200);
  return json.data;
}

async function newPayment(request: APIRequestContext, amount: string, tag: string): Promise<{ paymentId: string; orderId: string }> {
  const orderId = `ORDER_${tag}_${stamp}`;
  const data = await post(request, "/api/checkout", { orderId, amount });
  return { paymentId: data.paymentId, orderId };
}

const simulate = (request: APIRequestContext, paymentId: string, body: { outcome: string; attemptId?: string }) =>
  post(request, `/api/sandbox/payments/${paymentId}/simulate`, body) as Promise<{ attemptId: string; payment: { status: string } }>;

async function signIn(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
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

/** The webhook signature: `t=<unix seconds>,v1=<hex HMAC_SHA256(signing secret, t + "." + raw body)>`, worked out here rather than with the server's code. */
function signatureValid(header: string, body: string, secret: string): boolean {
  const parts = header.split(",").map((p) => p.trim().split("=") as [string, string]);
  const t = parts.find(([k]) => k === "t")?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = crypto.createHmac("sha256", Buffer.from(secret, "utf8")).update(`${t}.${body}`).digest("hex");
  return parts.some(([k, v]) => k === "v1" && v === expected);
}

test.beforeAll(async () => {
  merchant = JSON.parse(cli(["merchant", "create", "--name", owner.name, "--email", owner.email, "--password", owner.password, "--json"])) as Created;
  cli(["whitelist", "add", "--merchant", merchant.merchantId, "--ip", "127.0.0.1"]);
  receiver = await startWebhookReceiver();
  addWebhookEndpoint(merchant.merchantId, receiver.url, "refund.processed,refund.failed");
});
test.afterAll(() => receiver?.close());

test("a partial refund from the payment page: the signed refund.processed webhook arrives and the page shows it processed", async ({
  page,
  request,
}, testInfo) => {
  const { paymentId, orderId } = await newPayment(request, "499.00", "RF_PARTIAL");
  expect((await simulate(request, paymentId, { outcome: "SUCCESS" })).payment.status).toBe("SUCCESS");

  await signIn(page);
  await page.goto(`/dashboard/payments/${paymentId}`);
  await expect(page.getByRole("heading", { level: 1, name: "₹499.00" })).toBeVisible();
  const refundsCard = page.locator("section").filter({ has: page.getByRole("heading", { name: "Refunds", exact: true }) });
  await expect(refundsCard.getByText("No refunds")).toBeVisible();
  await screenshots(page, "payment-before-refund", testInfo);

  const dialog = page.getByRole("dialog", { name: "Refund payment" });
  let refundId = "";
  await test.step("the form defaults to the refundable amount and checks what is typed", async () => {
    await page.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(dialog).toBeVisible();
    const amount = dialog.getByLabel("Amount (₹)");
    await expect(amount).toHaveValue("499.00");
    await expect(dialog.getByText("Up to ₹499.00 can be refunded.")).toBeVisible();
    await amount.fill("500");
    await dialog.getByRole("button", { name: "Review refund" }).click();
    await expect(dialog.getByText("At most ₹499.00 can still be refunded.")).toBeVisible();
    await amount.fill("10.555");
    await dialog.getByRole("button", { name: "Review refund" }).click();
    await expect(dialog.getByText(/at most two decimals/)).toBeVisible();
    await amount.fill("0");
    await dialog.getByRole("button", { name: "Review refund" }).click();
    await expect(dialog.getByText("The amount must be more than ₹0.00")).toBeVisible();
    await amount.fill("150.50");
    await dialog.getByLabel("Reason (optional)").fill("Customer returned one item");
    await dialog.getByRole("button", { name: "Review refund" }).click();
  });

  await test.step("a confirmation step names the amount, then the refund is created", async () => {
    await expect(dialog.getByText("Refund ₹150.50 to the customer?")).toBeVisible();
    await expect(dialog.getByText("Customer returned one item")).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("refund-confirm-desktop.png") });
    await dialog.getByRole("button", { name: "Refund ₹150.50" }).click();
    await expect(dialog).toBeHidden();
    const row = refundsCard.getByTestId("refund-row").filter({ visible: true });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("₹150.50");
    await expect(row).toContainText("Customer returned one item");
    refundId = (await row.locator("code").first().textContent())!.trim();
    expect(refundId).toMatch(/^rfnd_/);
  });

  await test.step("refund.processed reaches the merchant's endpoint, signed", async () => {
    await expect
      .poll(() => receiver.received.find((h) => h.headers["x-webhook-event"] === "refund.processed" && h.body.includes(refundId)), { timeout: 20_000 })
      .toBeTruthy();
    const hook = receiver.received.find((h) => h.headers["x-webhook-event"] === "refund.processed" && h.body.includes(refundId))!;
    expect(signatureValid(String(hook.headers["x-webhook-signature"]), hook.body, merchant.sandbox.signingSecret)).toBe(true);
    expect(signatureValid(String(hook.headers["x-webhook-signature"]), `${hook.body} `, merchant.sandbox.signingSecret)).toBe(false);
    const event = JSON.parse(hook.body);
    expect(hook.headers["x-webhook-id"]).toBe(event.id);
    expect(event).toMatchObject({
      type: "refund.processed",
      mode: "sandbox",
      data: {
        refund: {
          refundId,
          paymentId,
          merchantOrderId: orderId,
          amount: "150.50",
          status: "PROCESSED",
          reason: "Customer returned one item",
          automatic: false,
        },
        payment: { paymentId, status: "SUCCESS", amountRefunded: "150.50", refundStatus: "PARTIAL" },
      },
    });
  });

  await test.step("the page shows the refund processed, the refunded amount and the timeline rows", async () => {
    const row = refundsCard.getByTestId("refund-row").filter({ visible: true });
    await expect(row).toContainText("Processed", { timeout: 15_000 });
    await expect(page.getByText("Partially refunded").first()).toBeVisible();
    const timeline = page.getByRole("list", { name: "Status changes, oldest first" });
    const refundRows = timeline.getByTestId("timeline-refund");
    await expect(refundRows).toHaveCount(2);
    await expect(refundRows.nth(0)).toContainText("Refund created");
    await expect(refundRows.nth(0)).toContainText("Refund of ₹150.50 created");
    await expect(refundRows.nth(0)).toContainText(refundId);
    await expect(refundRows.nth(1)).toContainText("₹150.50 refunded to the customer");
    await expect(page.getByRole("heading", { name: "refund.processed" })).toBeVisible();
    await screenshots(page, "payment-partially-refunded", testInfo);
  });

  await test.step("a refund the server refuses shows its message in the form", async () => {
    await page.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(dialog.getByLabel("Amount (₹)")).toHaveValue("348.50");
    await dialog.getByRole("button", { name: "Review refund" }).click();
    // Meanwhile the merchant's server refunds most of the rest through the API.
    await post(request, `/api/payments/${paymentId}/refunds`, { amount: "300.00" });
    await dialog.getByRole("button", { name: "Refund ₹348.50" }).click();
    await expect(dialog.getByText("At most 48.50 of this payment can still be refunded.")).toBeVisible();
    await expect(dialog.getByLabel("Amount (₹)")).toBeVisible();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(refundsCard.getByTestId("refund-row").filter({ visible: true })).toHaveCount(2);
  });
});

test("a late success on an abandoned attempt is refunded automatically, on the payment page and in the Refunds list", async ({ page, request }, testInfo) => {
  const { paymentId, orderId } = await newPayment(request, "250.00", "RF_LATE");
  const { attemptId } = await simulate(request, paymentId, { outcome: "PENDING" });
  await simulate(request, paymentId, { outcome: "ABANDONED", attemptId });
  expect((await simulate(request, paymentId, { outcome: "SUCCESS" })).payment.status).toBe("SUCCESS");
  await simulate(request, paymentId, { outcome: "SUCCESS", attemptId });
  // And one whose late success is the payment itself.
  const other = await newPayment(request, "75.00", "RF_LATE_PAID");
  const second = await simulate(request, other.paymentId, { outcome: "PENDING" });
  await simulate(request, other.paymentId, { outcome: "ABANDONED", attemptId: second.attemptId });
  expect((await simulate(request, other.paymentId, { outcome: "SUCCESS", attemptId: second.attemptId })).payment.status).toBe("SUCCESS");

  await signIn(page);
  await page.goto(`/dashboard/payments/${paymentId}`);
  const timeline = page.getByRole("list", { name: "Status changes, oldest first" });
  await expect(timeline).toContainText("Customer left the pending attempt");
  const auto = timeline.getByTestId("timeline-refund").first();
  await expect(auto).toContainText("Automatic refund");
  await expect(auto).toContainText(
    "Attempt 1 succeeded late, after this payment was already paid: its ₹250.00 goes back to the customer in an automatic refund",
  );
  const refundsCard = page.locator("section").filter({ has: page.getByRole("heading", { name: "Refunds", exact: true }) });
  const row = refundsCard.getByTestId("refund-row").filter({ visible: true });
  await expect(row).toContainText("Automatic");
  await expect(row).toContainText("₹250.00");
  await expect(row).toContainText("Processed", { timeout: 20_000 });
  await expect(timeline.getByTestId("timeline-refund")).toHaveCount(2);
  await expect(timeline.getByTestId("timeline-refund").nth(1)).toContainText("₹250.00 refunded to the customer (automatic refund)");
  // Money beyond the payment: the payment is still refundable in full.
  await expect(page.getByRole("button", { name: "Refund", exact: true })).toBeVisible();
  await expect(refundsCard).toContainText("₹0.00 of ₹250.00 refunded · ₹250.00 refundable");
  const autoRefundId = (await row.locator("code").first().textContent())!.trim();
  await screenshots(page, "payment-auto-refund", testInfo);

  await page.goto(`/dashboard/payments/${other.paymentId}`);
  await expect(page.getByRole("list", { name: "Status changes, oldest first" })).toContainText("Payment succeeded: an earlier attempt reported success late");

  await test.step("the Refunds list shows it, links to the payment, filters and exports", async () => {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Refunds" }).click();
    await expect(page).toHaveURL(/\/dashboard\/refunds$/);
    await expect(page).toHaveTitle("Refunds · Parakh");
    const rows = page.getByTestId("refund-row").filter({ visible: true });
    await expect(rows).toHaveCount(3);
    const autoRow = rows.filter({ hasText: autoRefundId });
    await expect(autoRow).toContainText("Automatic");
    await expect(autoRow).toContainText(orderId);
    await screenshots(page, "refunds-list", testInfo);

    await page.getByLabel("Refund, payment or order id").fill(paymentId);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(new RegExp(`q=${paymentId}`));
    await expect(rows).toHaveCount(1);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^refunds-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = csvRows(fs.readFileSync(await file.path(), "utf8").replace(/^\uFEFF/, ""));
    expect(csv[0]!.slice(0, 3)).toEqual(["refund_id", "payment_id", "order_id"]);
    expect(csv.slice(1).map((r) => [r[0], r[1], r[8]])).toEqual([[autoRefundId, paymentId, "true"]]);

    await page.getByLabel("Status").selectOption("FAILED");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByText("No refunds match these filters")).toBeVisible();

    await page.getByRole("button", { name: "Clear filters" }).first().click();
    await expect(rows).toHaveCount(3);
    await rows.filter({ hasText: autoRefundId }).getByRole("link", { name: orderId }).click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${paymentId}$`));
  });
});
