import fs from "node:fs";
import path from "node:path";
import type { FullConfig } from "@playwright/test";

// The server answers /api/health before it has seeded the demo merchant; wait for the seed so
// tests that sign in find its credentials (path passed on in PARAKH_E2E_DEMO_CREDENTIALS).
export default async function globalSetup(config: FullConfig) {
  // Set by playwright.config.ts: with two web servers (Parakh and the fake payment vendor) the config has no single one to read.
  const dataDir = process.env.PARAKH_E2E_DATA_DIR ?? config.webServer?.env?.DATA_DIR;
  if (!dataDir) throw new Error("playwright.config.ts: PARAKH_E2E_DATA_DIR is not set");
  const file = path.join(dataDir, "demo-credentials.json");
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const creds = JSON.parse(fs.readFileSync(file, "utf8")) as { email?: string; sandbox?: { secretKey?: string } };
      if (creds.email && creds.sandbox?.secretKey) break;
    } catch {
      // not written yet (or mid-write)
    }
    if (Date.now() > deadline) throw new Error(`The server did not seed the demo merchant: ${file} is missing`);
    await new Promise((r) => setTimeout(r, 200));
  }
  process.env.PARAKH_E2E_DEMO_CREDENTIALS = file;
}
