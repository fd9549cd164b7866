import { expect } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import type { PaymentProcessor } from "@/server/providers/payments/types";
import { startFakeCashfreePg, type FakeCashfreePg } from "./fake-cashfree-pg";
import { approveLiveViaCli, cli, createMerchantViaCli } from "./server";
import { startFor, type DbTarget, type Started } from "./targets";

const quiet = { warn: () => undefined, error: () => undefined };

/** A server taking live payments through the fake vendor, one live merchant on it, and a processor in this process on the same fake. */
export interface LivePayments {
  vendor: FakeCashfreePg;
  env: Started;
  db: Db;
  /** The live merchant's headers for /api/checkout and /api/payments/*. */
  headers: Record<string, string>;
  processors: Record<"sandbox" | "live", PaymentProcessor>;
}

/**
 * Starts it as an operator would run it (LIVE_PAYMENT_PROVIDER=cashfree, plus `serverEnv`): the merchant is approved
 * for live, has a live key and this machine's address whitelisted. The hosted page's actions then
 * run in this process against the server's database (DATA_DIR points at the server's).
 */
export async function startLivePayments(
  target: DbTarget,
  merchantName: string,
  credentials: { clientId: string; clientSecret: string },
  serverEnv: Record<string, string> = {},
): Promise<LivePayments> {
  const vendor = await startFakeCashfreePg(credentials);
  const env = await startFor(target, {
    ...serverEnv,
    LIVE_PAYMENT_PROVIDER: "cashfree",
    CASHFREE_PG_BASE_URL: vendor.url,
    CASHFREE_PG_CLIENT_ID: credentials.clientId,
    CASHFREE_PG_CLIENT_SECRET: credentials.clientSecret,
  });
  const m = await createMerchantViaCli(env.server.env, merchantName);
  const key = await approveLiveViaCli(env.server.env, m.merchantId);
  expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
  process.env.DATA_DIR = env.server.dataDir;
  const { createCashfreeProcessor } = await import("@/server/providers/payments/cashfree");
  const { sandboxProcessor } = await import("@/server/providers/payments/sandbox");
  const live = createCashfreeProcessor({
    settings: { baseUrl: vendor.url, ...credentials, timeoutMs: 5_000, maxConcurrency: 4 },
    appUrl: env.server.url,
    checkoutUrl: env.server.url,
    logger: quiet,
    tuning: { retryDelayMs: 10, listed: false },
  });
  return {
    vendor,
    env,
    db: createPrismaClient(env.server.databaseUrl),
    headers: { "x-merchant-id": m.merchantId, "x-api-key": key.publicKey, "x-secret-key": key.secretKey },
    processors: { sandbox: sandboxProcessor, live },
  };
}

/** After each test: the fake forgets its scripts, and every call and answer matched the vendor's document. */
export function checkVendorCalls(live: LivePayments | undefined): void {
  live?.vendor.clear();
  expect(live?.vendor.problems ?? []).toEqual([]);
}

export async function stopLivePayments(live: LivePayments | undefined): Promise<void> {
  await live?.db.$disconnect();
  await live?.env.stop();
  await live?.vendor.close();
}
