import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { dashboardContext, failure, merchantSession } from "../helpers/dashboard";

// Server modules read DATA_DIR/DATABASE_URL when first imported, so set them before importing.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-text-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";

const { migrateTestDatabase } = await import("../helpers/test-db");
const { startPostgres } = await import("../helpers/postgres");
const { createServices, getServices } = await import("@/server/services");
const { getConfig } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { createMerchant } = await import("@/server/services/merchants/merchants");

type Services = import("@/server/services").AppServices;

/**
 * The dashboard refuses text no database stores as sent, naming the field, like the REST door (never a
 * 500 on PostgreSQL), and stores the free text it takes redacted by value.
 */
describe.each(DB_TARGETS)("dashboard free text on %s", (target) => {
  let services: Services;
  let close: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    if (target === "sqlite") {
      await migrateTestDatabase(process.env.DATABASE_URL!);
      services = getServices();
    } else {
      const pg = await startPostgres({ migrated: true });
      await migrateTestDatabase(pg.url);
      services = createServices({ ...getConfig(), databaseUrl: pg.url });
      close = async () => {
        await services.db.$disconnect();
        await pg.stop();
      };
    }
  });
  afterAll(() => close());

  it("answers BAD_REQUEST VALIDATION_ERROR naming the field, and stores nothing", async () => {
    const m = await createMerchant(services.db, { name: "Shop", email: `nul-${target}@example.com`, password: "a-long-password" });
    const dash = dashboardRouter.createCaller(dashboardContext(services, merchantSession(m)));
    const label = await failure(dash.whitelist.add({ ip: "203.0.113.7", label: "office\u0000" }));
    expect(label).toMatchObject({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR", fields: ["label"] });
    const description = await failure(
      dash.webhooks.create({ mode: "sandbox", url: "https://example.com/hook", events: ["payment.success"], description: "a\u0000b" }),
    );
    expect(description).toMatchObject({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR", fields: ["description"] });
    expect(await services.db.ipWhitelistEntry.count({ where: { merchantId: m.merchantId } })).toBe(0);
    expect(await services.db.webhookEndpoint.count({ where: { merchantId: m.merchantId } })).toBe(0);
    // The same text without the byte is fine.
    await dash.whitelist.add({ ip: "203.0.113.7", label: "office" });
  });

  it("keeps no secret key or card number pasted into a label or description (B9 by value)", async () => {
    const m = await createMerchant(services.db, { name: "Shop", email: `b9-${target}@example.com`, password: "a-long-password" });
    const dash = dashboardRouter.createCaller(dashboardContext(services, merchantSession(m)));
    const secret = "sk_live_AbCdEfGhIjKlMnOpQrStUvWx";
    const key = await dash.keys.create({ mode: "sandbox", label: `ci ${secret}` });
    expect(key.label).toBe("ci [REDACTED]");
    await dash.whitelist.add({ ip: "198.51.100.9", label: "card 4111 1111 1111 1111" });
    const hook = await dash.webhooks.create({ mode: "sandbox", url: "https://example.com/hook", events: ["payment.success"], description: `uses ${secret}` });
    expect(hook.description).toBe("uses [REDACTED]");
    const stored = JSON.stringify([
      await services.db.apiKey.findMany({ where: { merchantId: m.merchantId }, select: { label: true } }),
      await services.db.ipWhitelistEntry.findMany({ where: { merchantId: m.merchantId }, select: { label: true } }),
      await services.db.webhookEndpoint.findMany({ where: { merchantId: m.merchantId }, select: { description: true } }),
    ]);
    expect(stored).not.toMatch(/sk_live_A|4111/);
  });
});
