import fs from "node:fs";
import path from "node:path";
import type { FullConfig } from "@playwright/test";

// The server answers /api/health before it has seeded the demo merchant; wait for the seed so
// tests that sign in find its credentials (path passed on in PARAKH_E2E_DEMO_CREDENTIALS).
export default async function globalSetup(config: FullConfig) {
  // The Parakh server is the web server with a data folder (the other one is the fake payment vendor).
  const servers = (config as unknown as { webServer?: unknown }).webServer;
  const withData = ([] as { env?: Record<string, string> }[]).concat((servers ?? []) as never).find((w) => w?.env?.DATA_DIR);
  const dataDir = withData?.env?.DATA_DIR ?? config.webServer?.env?.DATA_DIR;
  if (!dataDir) throw new Error("playwright.config.ts: webServer.env.DATA_DIR is not set");
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
