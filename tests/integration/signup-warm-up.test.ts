import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";

// The start-up warm-up rehearses the sign-up's transaction and rolls it back: it must leave no
// merchant, key, signing secret, wallet or ledger row behind, on either database, and sign-ups after it work.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-warm-up-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";

const { migrateTestDatabase } = await import("../helpers/test-db");
const { createServices, getServices } = await import("@/server/services");
const { getConfig } = await import("@/server/config");
const { warmSignupPath } = await import("@/server/services/accounts/warm-up");
const { createMerchant } = await import("@/server/services/merchants/merchants");
const { signInMerchant } = await import("@/server/services/accounts/sign-in");

type Db = import("@/server/db/client").Db;

describe.each(DB_TARGETS)("the sign-up warm-up on %s", (target) => {
  let pg: PostgresCluster | undefined;
  let db: Db;

  beforeAll(async () => {
    if (target === "sqlite") {
      await migrateTestDatabase(process.env.DATABASE_URL!);
      db = getServices().db;
    } else {
      pg = await startPostgres({ migrated: true });
      await migrateTestDatabase(pg.url);
      db = createServices({ ...getConfig(), databaseUrl: pg.url }).db;
    }
  });
  afterAll(async () => {
    if (pg) {
      await db.$disconnect();
      await pg.stop();
    }
  });

  const counts = async () => ({
    merchants: await db.merchant.count(),
    keys: await db.apiKey.count(),
    secrets: await db.signingSecret.count(),
    wallets: await db.wallet.count(),
    ledger: await db.ledgerEntry.count(),
  });

  it("keeps nothing, however often it runs, and a sign-up and sign-in after it work", async () => {
    const existing = await createMerchant(db, { name: "Chai Point", email: `chai-${target}@shop.example`, password: "a-long-password" });
    const before = await counts();
    expect(before).toEqual({ merchants: 1, keys: 1, secrets: 1, wallets: 1, ledger: 1 });

    await warmSignupPath(db);
    await warmSignupPath(db);
    expect(await counts()).toEqual(before);
    expect(await db.merchant.findMany({ where: { email: { endsWith: ".invalid" } } })).toEqual([]);

    const next = await createMerchant(db, { name: "Dosa Corner", email: `dosa-${target}@shop.example`, password: "a-long-password" });
    expect(await counts()).toEqual({ merchants: 2, keys: 2, secrets: 2, wallets: 2, ledger: 2 });
    const wallet = await db.wallet.findFirstOrThrow({ where: { merchantId: next.merchantId, mode: "sandbox" } });
    expect(wallet.balancePaise).toBe(10_000_00);
    const signedIn = await signInMerchant(db, { email: `dosa-${target}@shop.example`, password: "a-long-password" }, "203.0.113.9");
    expect(signedIn.id).toBe(next.merchantId);
    expect(existing.merchantId).not.toBe(next.merchantId);
  });
});
