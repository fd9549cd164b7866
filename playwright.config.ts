import { execFileSync } from "node:child_process";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS } from "./e2e/chromium";

/**
 * A loopback port nobody listens on now. The config is read again by every worker, so the choice
 * goes into the environment the workers inherit, and they all agree on it.
 */
function freePort(variable: string): number {
  process.env[variable] ??= execFileSync(
    process.execPath,
    ["-e", "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); })"],
    { encoding: "utf8" },
  );
  return Number(process.env[variable]);
}

// Ports of their own unless E2E_PORT / E2E_FAKE_PG_PORT name them, so a run never meets a server already there.
const PORT = freePort("E2E_PORT");
const BASE_URL = `http://127.0.0.1:${PORT}`;

// Playwright empties outputDir before it starts the web server, so a data folder inside it is
// fresh for every run (globalSetup would be too late: it runs after the web server is up).
const OUTPUT_DIR = path.resolve(__dirname, "test-results");
const E2E_DATA_DIR = path.join(OUTPUT_DIR, "e2e-data");

// Live payments go to a loopback fake of the Cashfree Payment Gateway (e2e/fake-vendor-server.ts),
// which also serves the vendor's JS checkout and card page to the browser.
const FAKE_PG_PORT = freePort("E2E_FAKE_PG_PORT");
const FAKE_PG_URL = `http://127.0.0.1:${FAKE_PG_PORT}`;
const FAKE_PG_CREDENTIALS = { CASHFREE_PG_CLIENT_ID: "CF_PG_E2E", CASHFREE_PG_CLIENT_SECRET: "cfsk_ma_pg_e2e_secret" };
process.env.PARAKH_E2E_FAKE_PG_URL = FAKE_PG_URL;
process.env.PARAKH_E2E_DATA_DIR = E2E_DATA_DIR;

// Playwright cannot download its own browsers here; Debian's chromium is used instead.
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: "e2e",
  outputDir: OUTPUT_DIR,
  globalSetup: "./e2e/global-setup.ts",
  fullyParallel: false,
  // Specs share one server but make their own merchants, so they run side by side: two browsers
  // took 112 s where one took 169 s on 2 cores (E2E_WORKERS changes it).
  workers: Number(process.env.E2E_WORKERS ?? 2),
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [
    ["list"],
    ["html", { outputFolder: "playwright-report", open: "never" }],
    // scripts/test.ts reads the counts from here for its closing line.
    ...(process.env.PLAYWRIGHT_JSON_OUTPUT_FILE ? [["json"] as ["json"]] : []),
  ],
  use: {
    baseURL: BASE_URL,
    headless: true,
    screenshot: "only-on-failure",
    // Recording a trace costs a browser a lot of CPU: only a retried test records one.
    trace: "on-first-retry",
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: [
    {
      // The server as `npm start` runs it, its bundle first brought up to date with the sources; `exec`
      // so that signals reach the server itself.
      command: "npx tsx scripts/build-server.ts --if-stale && exec node dist/server.mjs",
      url: `${BASE_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: "ignore",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
      env: {
        NODE_ENV: "production",
        // A developer's own .env never reaches the tests' server.
        PARAKH_ENV_FILE: "none",
        // One process: the cluster has its own integration test.
        WEB_CONCURRENCY: "1",
        PORT: String(PORT),
        HOST: "127.0.0.1",
        DATA_DIR: E2E_DATA_DIR,
        DATABASE_URL: `file:${path.join(E2E_DATA_DIR, "parakh.db")}`,
        SEED_DEMO: "true",
        // A throwaway database: no need to survive a power loss, and every commit waiting on the disk
        // would serialise the browsers' requests behind one another.
        SQLITE_SYNCHRONOUS: "NORMAL",
        SERVE_PAGES: "true",
        APP_URL: BASE_URL,
        NEXTAUTH_URL: BASE_URL,
        // Sandbox webhooks to the tests' own loopback receivers.
        WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true",
        // Every spec signs up its own merchants from this one address.
        SIGNUPS_PER_ADDRESS_PER_HOUR: "1000",
        // scrypt's lowest allowed cost for the specs' many sign-ups and sign-ins (the default is 2^15).
        PASSWORD_HASH_COST: "12",
        // Live payments (for merchants an operator approved) through the fake vendor below.
        LIVE_PAYMENT_PROVIDER: "cashfree",
        CASHFREE_PG_BASE_URL: `${FAKE_PG_URL}/pg`,
        ...FAKE_PG_CREDENTIALS,
      },
    },
    {
      command: "node --import tsx e2e/fake-vendor-server.ts",
      url: `${FAKE_PG_URL}/js/v3/cashfree.js`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
      env: { FAKE_PG_PORT: String(FAKE_PG_PORT), ...FAKE_PG_CREDENTIALS },
    },
  ],
});
