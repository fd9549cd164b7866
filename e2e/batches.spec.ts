import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { csvRows } from "../tests/helpers/csv";

// One merchant's Batches page, in order: upload a PAN file with a bad row, see it rejected in the
// preview, submit, watch the progress reach 100 %, open the batch and download its results; then a
// pasted EPFO batch and the kind filter; at desktop and phone width.
test.describe.configure({ mode: "serial" });

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = path.join(ROOT, "test-results", "e2e-data");
const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
const merchant = { name: "Batch Bazaar", email: `batches${stamp}@bazaar.example`, password: "batches-secret-pass" };
let batchId = "";

function cli(args: string[]) {
  return execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR, DATABASE_URL: `file:${path.join(DATA_DIR, "parakh.db")}`, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

async function signIn(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
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

// A spreadsheet export: byte-order mark, CRLF, a quoted name with a comma, a blank line, one bad PAN.
const PAN_FILE =
  "\uFEFFpan,name,reference_id,notes\r\n" +
  'ABCPK1234F,"Kapoor, Arjun",emp-001,first\r\n' +
  "\r\n" +
  "NOTAPAN,Bad Row,emp-002,\r\n" +
  "abcpk9991f,,emp-003,\r\n" +
  "ABCPK9992F,Someone Else,=cmd(),\r\n";

test.beforeAll(() => {
  cli(["merchant", "create", "--name", merchant.name, "--email", merchant.email, "--password", merchant.password, "--json"]);
});

test("upload a PAN file: the bad row is rejected in the preview, the batch runs to 100 %", async ({ page }, testInfo) => {
  await signIn(page);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Batches" }).click();
  await expect(page).toHaveURL(/\/dashboard\/batches$/);
  await expect(page).toHaveTitle("Batches · Parakh");
  await expect(page.getByText("No sandbox batches yet")).toBeVisible();

  await test.step("the template downloads and names the columns", async () => {
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download the PAN template" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe("pan-batch-template.csv");
    expect(fs.readFileSync(await file.path(), "utf8").split("\r\n")[0]).toBe("pan,name,reference_id");
  });

  await test.step("the preview shows what would be accepted, and the rejected row with its line and reason", async () => {
    await page.getByLabel("CSV file").setInputFiles({ name: "payroll-nov.csv", mimeType: "text/csv", buffer: Buffer.from(PAN_FILE, "utf8") });
    const preview = page.getByRole("region", { name: "Preview" });
    await expect(preview.getByTestId("preview-total")).toHaveText("4");
    await expect(preview.getByTestId("preview-accepted")).toHaveText("3");
    await expect(preview.getByTestId("preview-rejected")).toHaveText("1");
    const rejected = preview.getByRole("table", { name: "Rejected rows" }).getByRole("row");
    await expect(rejected).toHaveCount(2);
    // The blank line counts: the bad row is line 4 of the file.
    await expect(rejected.nth(1).getByRole("cell").nth(0)).toHaveText("4");
    await expect(rejected.nth(1)).toContainText("emp-002");
    await expect(rejected.nth(1)).toContainText("NOTAPAN");
    await expect(rejected.nth(1)).toContainText("INVALID_PAN");
    await expect(page.getByText("Ignored column: notes.")).toBeVisible();
    await page.getByText("Reference and webhook (optional)").click();
    await expect(page.getByLabel("Your reference")).toHaveValue("payroll-nov");
    await screenshots(page, "batches-preview", testInfo);
  });

  await test.step("submit: the list shows the batch and its progress reaches 100 %", async () => {
    await page.getByRole("button", { name: "Submit batch (3 rows to verify)" }).click();
    const queued = page.getByRole("status").filter({ hasText: "is queued with 4 rows" });
    await expect(queued).toBeVisible();
    batchId = (await queued.locator("code").textContent())!.trim();
    expect(batchId).toMatch(/^batch_[A-Za-z0-9]+$/);
    // The form is ready for the next file.
    await expect(page.getByRole("region", { name: "Preview" })).toHaveCount(0);

    const table = page.getByRole("table", { name: "Batches, newest first" });
    const row = table.getByRole("row").filter({ hasText: batchId });
    await expect(row).toContainText("payroll-nov");
    await expect(row.getByRole("progressbar", { name: `Progress of ${batchId}` })).toHaveAttribute("aria-valuenow", "100", { timeout: 30_000 });
    await expect(row).toContainText("Completed");
    await expect(row).toContainText("3 succeeded");
    await expect(row).toContainText("1 failed");
    await expect(row).toContainText("1 rejected");
    await screenshots(page, "batches-list", testInfo);
  });
});

test("the batch detail: counts, timings, results and the results CSV", async ({ page }, testInfo) => {
  await signIn(page);
  await page.goto("/dashboard/batches");
  await page.getByRole("table", { name: "Batches, newest first" }).getByRole("link", { name: batchId }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/batches/${batchId}$`));
  await expect(page.getByRole("heading", { name: "PAN batch" })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: `Progress of ${batchId}` })).toHaveAttribute("aria-valuenow", "100");
  await expect(page.getByTestId("count-total")).toHaveText("4");
  await expect(page.getByTestId("count-succeeded")).toHaveText("3");
  await expect(page.getByTestId("count-failed")).toHaveText("1");
  await expect(page.getByTestId("count-rejected")).toHaveText("1");
  await expect(page.getByText("The dashboard", { exact: true })).toBeVisible();
  await expect(page.getByText(/^Completed$/).first()).toBeVisible();

  const results = page.getByRole("table", { name: "Batch results, in submitted order" }).getByRole("row");
  await expect(results).toHaveCount(5);
  await expect(results.nth(1)).toContainText("emp-001");
  await expect(results.nth(1)).toContainText("VALID");
  await expect(results.nth(2)).toContainText("NOTAPAN");
  await expect(results.nth(2)).toContainText("INVALID_PAN");
  await expect(results.nth(3)).toContainText("INVALID");
  await expect(results.nth(4)).toContainText("DEACTIVATED");
  // A score carries its band, as on Verifications: "0.00" alone reads as a figure, not as no match.
  await expect(results.nth(1)).toContainText(/name match 100\.00\s*Match/);
  await expect(results.nth(4)).toContainText(/name match \d+\.\d\d\s*No match/);
  await expect(page.getByText("Items 1–4 of 4 · page 1 of 1")).toBeVisible();

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download results (CSV)" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(new RegExp(`^${batchId}-results-sandbox-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
  const rows = csvRows(fs.readFileSync(await file.path(), "utf8").replace(/^\uFEFF/, ""));
  expect(rows[0]).toEqual([
    "index",
    "reference_id",
    "pan",
    "name",
    "item_status",
    "pan_status",
    "registered_name",
    "category",
    "name_match",
    "name_match_result",
    "aadhaar_seeding_status",
    "error_code",
    "error_message",
  ]);
  expect(rows).toHaveLength(5);
  expect(rows[1]!.slice(0, 6)).toEqual(["0", "emp-001", "ABCPK1234F", "Kapoor, Arjun", "SUCCEEDED", "VALID"]);
  expect(rows[2]!.slice(0, 5)).toEqual(["1", "emp-002", "NOTAPAN", "Bad Row", "FAILED"]);
  expect(rows[2]![11]).toBe("INVALID_PAN");
  expect(rows[3]!.slice(0, 6)).toEqual(["2", "emp-003", "ABCPK9991F", "", "SUCCEEDED", "INVALID"]);
  // A reference a spreadsheet would run as a formula is kept as text.
  expect(rows[4]!.slice(0, 6)).toEqual(["3", "'=cmd()", "ABCPK9992F", "Someone Else", "SUCCEEDED", "DEACTIVATED"]);

  await screenshots(page, "batch-detail", testInfo);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("list", { name: "Batch results, in submitted order" }).getByRole("listitem")).toHaveCount(4);
  await page.setViewportSize({ width: 1280, height: 800 });

  // The checks are in the verification history too, linked to their batch.
  await page.goto("/dashboard/verifications?subject=ABCPK9992F");
  await page.getByRole("table", { name: "PAN and EPFO checks, newest first" }).getByRole("link", { name: batchId }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/batches/${batchId}$`));
});

test("a batch waiting for the source: counts agree with the results, the page says why, and the views and search list the right rows", async ({
  page,
}, testInfo) => {
  // The sandbox source answers ABCPK9998F with a 503 every time: it waits out the 30 s retry budget, then fails.
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto("/dashboard/batches");
  await page.getByRole("button", { name: "Paste CSV" }).click();
  await page.getByLabel("CSV text").fill("pan,name,reference_id\nABCPK1234F,Arjun Kapoor,w-1\nABCPK9998F,,w-2\nNOTAPAN,,w-3\nabcpk9991f,,w-4\n");
  await page.getByRole("button", { name: "Check rows" }).click();
  await expect(page.getByTestId("preview-accepted")).toHaveText("3");
  await page.getByRole("button", { name: "Submit batch (3 rows to verify)" }).click();
  const queued = page.getByRole("status").filter({ hasText: "is queued with 4 rows" });
  await expect(queued).toBeVisible();
  const id = (await queued.locator("code").textContent())!.trim();
  await page.goto(`/dashboard/batches/${id}`);

  const waiting = page.getByTestId("waiting-for-source");
  const results = page.getByRole("table", { name: "Batch results, in submitted order" }).getByRole("row");
  await test.step("while one item waits: the counters count exactly the finished rows, and the page says how many wait and until when", async () => {
    await expect(waiting).toContainText(/^1 item waiting for the source, retrying until \d{2}:\d{2}:\d{2} IST/);
    // Until = the first 503 plus the 30 s budget: between now and 30 s from now.
    const until = (await waiting.textContent())!
      .match(/until (\d{2}):(\d{2}):(\d{2}) IST/)!
      .slice(1)
      .map(Number);
    const nowIst = new Date(Date.now() + 330 * 60_000);
    const secondsAhead =
      (until[0]! * 3600 + until[1]! * 60 + until[2]! - (nowIst.getUTCHours() * 3600 + nowIst.getUTCMinutes() * 60 + nowIst.getUTCSeconds()) + 86_400) % 86_400;
    expect(secondsAhead).toBeLessThanOrEqual(31);
    // The source's Retry-After (30 s) reaches the budget's end: one try is left, then.
    await expect(waiting).toContainText("One last try then");
    await expect(page.getByTestId("count-processed")).toHaveText("3");
    await expect(page.getByTestId("count-succeeded")).toHaveText("2");
    await expect(page.getByTestId("count-failed")).toHaveText("1");
    await expect(page.getByRole("progressbar", { name: `Progress of ${id}` })).toHaveAttribute("aria-valuenow", "75");
    await expect(results).toHaveCount(5);
    await expect(results.nth(1)).toContainText("VALID");
    await expect(results.nth(2)).toContainText("Pending");
    await expect(results.nth(3)).toContainText("INVALID_PAN");
    await expect(results.nth(4)).toContainText("INVALID");
    await screenshots(page, "batch-waiting-for-source", testInfo);
  });

  await test.step("Pending and Succeeded, while it runs: the waiting row, and the answered ones", async () => {
    await page.getByRole("button", { name: "Pending (1)" }).click();
    await expect(page.getByRole("button", { name: "Pending (1)" })).toHaveAttribute("aria-pressed", "true");
    await expect(results).toHaveCount(2);
    await expect(results.nth(1)).toContainText("w-2");
    await expect(page.getByText("Pending items 1–1 of 1 · page 1 of 1")).toBeVisible();
    await page.getByRole("button", { name: "Succeeded (2)" }).click();
    await expect(results).toHaveCount(3);
    await expect(results.nth(1)).toContainText("w-1");
    await expect(results.nth(2)).toContainText("w-4");
    await expect(page.getByText("Succeeded items 1–2 of 2 · page 1 of 1")).toBeVisible();
  });

  await test.step("Failed, while it runs: the rejected row", async () => {
    await page.getByRole("button", { name: "Failed (1)" }).click();
    await expect(page.getByRole("button", { name: "Failed (1)" })).toHaveAttribute("aria-pressed", "true");
    await expect(results).toHaveCount(2);
    await expect(results.nth(1)).toContainText("w-3");
    await expect(page.getByText("Failed items 1–1 of 1 · page 1 of 1")).toBeVisible();
  });

  await test.step("after the budget: the waiting item failed with the source's error, and Failed lists both", async () => {
    await expect(page.getByRole("progressbar", { name: `Progress of ${id}` })).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
    await expect(waiting).toHaveCount(0);
    await expect(page.getByTestId("count-failed")).toHaveText("2");
    const failed = page.getByRole("button", { name: "Failed (2)" });
    await expect(failed).toHaveAttribute("aria-pressed", "true");
    await expect(results).toHaveCount(3);
    await expect(results.nth(1)).toContainText("SOURCE_UNAVAILABLE");
    await expect(results.nth(1)).toContainText("w-2");
    await expect(results.nth(2)).toContainText("INVALID_PAN");
    await expect(page.getByText("Failed items 1–2 of 2 · page 1 of 1")).toBeVisible();
    await screenshots(page, "batch-failed-only", testInfo);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByRole("list", { name: "Batch results, in submitted order" }).getByRole("listitem")).toHaveCount(2);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole("button", { name: "All (4)" }).click();
    await expect(page.getByText("Items 1–4 of 4 · page 1 of 1")).toBeVisible();
    await expect(page.getByRole("button", { name: "Pending (0)" })).toBeVisible();
  });

  await test.step("search by reference id or PAN, capitals or not, within a view", async () => {
    const search = page.getByRole("search", { name: "Search the results" });
    await search.getByLabel("Search by reference id or PAN").fill("abcpk9991f");
    await search.getByRole("button", { name: "Search" }).click();
    await expect(results).toHaveCount(2);
    await expect(results.nth(1)).toContainText("w-4");
    await expect(page.getByText("Matches 1–1 · page 1")).toBeVisible();
    await search.getByLabel("Search by reference id or PAN").fill("W-");
    await search.getByRole("button", { name: "Search" }).click();
    await expect(results).toHaveCount(5);
    await page.getByRole("button", { name: "Failed (2)" }).click();
    await expect(results).toHaveCount(3);
    await search.getByLabel("Search by reference id or PAN").fill("nobody");
    await search.getByRole("button", { name: "Search" }).click();
    await expect(page.getByText("No failed item has “nobody” in its reference id or PAN.")).toBeVisible();
    await screenshots(page, "batch-search-empty", testInfo);
    await search.getByRole("button", { name: "Clear" }).click();
    await expect(results).toHaveCount(3);
  });
});

test("a pasted EPFO batch, the wrong-kind warning, and the kind filter", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/batches");
  await page.getByRole("radio", { name: /^EPFO/ }).check();
  await page.getByRole("button", { name: "Paste CSV" }).click();
  await page.getByLabel("CSV text").fill("pan,name\nABCPK1234F,Arjun Kapoor\n");
  await page.getByRole("button", { name: "Check rows" }).click();
  await expect(page.getByText(/This looks like a PAN file: choose PAN above/)).toBeVisible();

  await page.getByLabel("CSV text").fill("uan,pf_number,reference_id\n100200300400,,e-1\n,MHBAN00000640000000123,e-2\n");
  await page.getByRole("button", { name: "Check rows" }).click();
  await expect(page.getByTestId("preview-accepted")).toHaveText("2");
  await expect(page.getByTestId("preview-rejected")).toHaveText("0");
  await page.getByRole("button", { name: "Submit batch of 2 rows" }).click();
  const queued = page.getByRole("status").filter({ hasText: "is queued with 2 rows" });
  await expect(queued).toBeVisible();
  const epfoId = (await queued.locator("code").textContent())!.trim();

  await page.getByRole("navigation", { name: "Filter by kind" }).getByRole("link", { name: "EPFO" }).click();
  await expect(page).toHaveURL(/\?kind=EPFO$/);
  const table = page.getByRole("table", { name: "Batches, newest first" });
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(table.getByRole("progressbar", { name: `Progress of ${epfoId}` })).toHaveAttribute("aria-valuenow", "100", { timeout: 30_000 });
  await expect(table).not.toContainText(batchId);

  await page.setViewportSize({ width: 390, height: 844 });
  const phoneList = page.getByRole("list", { name: "Batches, newest first" });
  await expect(phoneList.getByRole("listitem")).toHaveCount(1);
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await phoneList.getByRole("link").click();
  await expect(page.getByRole("heading", { name: "EPFO batch" })).toBeVisible();
  await expect(page.getByRole("list", { name: "Batch results, in submitted order" })).toContainText("ACTIVE");
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
});

test("a 3,000-row file (past the dashboard's usual 64 KiB body) previews, runs and pages", async ({ page }) => {
  const lines = [
    "pan,name,reference_id",
    ...Array.from({ length: 3000 }, (_, i) => `ABCPK${1000 + i}F,Employee Number ${i},staff-${String(i).padStart(5, "0")}`),
  ];
  const file = Buffer.from(lines.join("\n"), "utf8");
  expect(file.length).toBeGreaterThan(64 * 1024);
  await signIn(page);
  await page.goto("/dashboard/batches");
  await page.getByLabel("CSV file").setInputFiles({ name: "big.csv", mimeType: "text/csv", buffer: file });
  await expect(page.getByTestId("preview-accepted")).toHaveText("3,000");
  await page.getByRole("button", { name: "Submit batch of 3,000 rows" }).click();
  const queued = page.getByRole("status").filter({ hasText: "is queued with 3,000 rows" });
  await expect(queued).toBeVisible();
  const id = (await queued.locator("code").textContent())!.trim();
  const bar = page.getByRole("table", { name: "Batches, newest first" }).getByRole("progressbar", { name: `Progress of ${id}` });
  await expect(bar).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });

  await page.goto(`/dashboard/batches/${id}`);
  await expect(page.getByTestId("count-succeeded")).toHaveText("3,000");
  await expect(page.getByText("Items 1–50 of 3,000 · page 1 of 60")).toBeVisible();
  await page.getByRole("navigation", { name: "Results pages" }).getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Items 51–100 of 3,000 · page 2 of 60")).toBeVisible();
  await expect(page.getByRole("table", { name: "Batch results, in submitted order" })).toContainText("staff-00050");

  // The search runs on the server over every item, not only the page on screen: staff-0299x is on page 60.
  await page.getByLabel("Search by reference id or PAN").fill("staff-0299");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const rows = page.getByRole("table", { name: "Batch results, in submitted order" }).getByRole("row");
  await expect(rows).toHaveCount(11);
  await expect(rows.nth(1)).toContainText("staff-02990");
  await expect(page.getByText("Matches 1–10 · page 1")).toBeVisible();
});
