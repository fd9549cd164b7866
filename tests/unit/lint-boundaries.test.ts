import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it, vi } from "vitest";

// The layer rules of eslint.config.mjs, each shown catching a violation at the path where it applies,
// and letting the allowed form through. Snippets are linted as if they were files of the repository,
// so imports resolve against the real folders.

const root = path.resolve(__dirname, "../..");
const BOUNDARY_RULES = new Set([
  "import/no-restricted-paths",
  "import/no-nodejs-modules",
  "no-restricted-imports",
  "@typescript-eslint/no-restricted-imports",
  "no-restricted-syntax",
]);

let eslint: ESLint;
// The first lint builds the TypeScript program the typed rules read: seconds on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

beforeAll(() => {
  eslint = new ESLint({ cwd: root, overrideConfigFile: path.join(root, "eslint.config.mjs") });
});

/** The boundary rules a snippet breaks, linted as the file at `file` (relative to the repository). */
async function broken(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId && BOUNDARY_RULES.has(m.ruleId)).map((m) => ({ rule: m.ruleId, message: m.message }));
}

const rulesOf = (found: { rule: string | null }[]) => found.map((f) => f.rule);

describe("services, providers and jobs know no door", () => {
  it.each([
    ["src/server/services/payments/probe.ts", 'export { apiOk } from "../../rest/envelope";'],
    ["src/server/services/payments/probe.ts", 'export { apiOk } from "@/server/rest/envelope";'],
    ["src/server/services/probe.ts", 'export { t } from "../trpc/init";'],
    ["src/server/jobs/probe.ts", 'export { REST_OPERATIONS } from "../api/rest-router";'],
    ["src/server/providers/pan/probe.ts", 'export { errorResponse } from "../../http/error-response";'],
    ["src/server/services/accounts/probe.ts", 'export { requireUser } from "../../auth/session";'],
    ["src/server/services/audit/probe.ts", 'export { processMetrics } from "@/server/metrics/registry";'],
  ])("%s may not import %s", async (file, code) => {
    expect(rulesOf(await broken(file, code))).toEqual(["import/no-restricted-paths"]);
  });

  it("a service imports other services, src/lib and src/server/lib", async () => {
    const code = ['export { AppError } from "../../errors";', 'export { MODES } from "@/lib/mode";', 'export { newId } from "@/server/lib/ids";'].join("\n");
    expect(await broken("src/server/services/payments/probe.ts", code)).toEqual([]);
  });
});

describe("no import runs back up", () => {
  it.each([
    ["src/server/jobs/probe.ts", 'export { expirePayment } from "../services/payments/lifecycle";'],
    ["src/server/jobs/probe.ts", 'export type { AppServices } from "@/server/services";'],
    ["src/server/jobs/probe.ts", 'export { JOB_HANDLERS } from "@/server/job-handlers/handlers";'],
    ["src/server/services/payments/probe.ts", 'export { JOB_HANDLERS } from "@/server/job-handlers/handlers";'],
    ["src/server/api/dashboard/probe.ts", 'export { createJobRunners } from "@/server/job-handlers/runners";'],
    ["src/server/lib/probe.ts", 'export { redactString } from "@/server/services/audit/redact";'],
    ["src/server/lib/probe.ts", 'export { refundJob } from "@/server/jobs/registry";'],
    ["src/server/lib/probe.ts", 'export { getConfig } from "@/server/config";'],
    ["src/server/lib/probe.ts", 'export { databaseUrlFromEnv } from "../db/provider";'],
    ["src/server/metrics/probe.ts", 'export { hasUnreadBody } from "@/server/rest/body";'],
    ["src/server/metrics/probe.ts", 'export { errorPayload } from "../http/error-response";'],
    ["src/server/rest/probe.ts", 'export { validateBatchItems } from "@/server/api/batches/batch-items";'],
    ["src/server/rest/probe.ts", 'export { createRestDoor } from "../http/rest-door";'],
  ])("%s may not import %s", async (file, code) => {
    expect(rulesOf(await broken(file, code))).toEqual(["import/no-restricted-paths"]);
  });

  it("services enqueue through the job declarations and hold leases; the handlers call the services", async () => {
    const service = [
      'export { refundJob } from "@/server/jobs/registry";',
      'export { LeasedRows } from "@/server/jobs/lease";',
      'export { backoffCeiling } from "../../jobs/policy";',
    ];
    expect(await broken("src/server/services/refunds/probe.ts", service.join("\n"))).toEqual([]);
    const handlers = ['export { processRefund } from "@/server/services/refunds/refunds";', 'export type { AppServices } from "@/server/services";'];
    expect(await broken("src/server/job-handlers/probe.ts", handlers.join("\n"))).toEqual([]);
    expect(await broken("src/server/http/probe.ts", 'export { createJobRunners } from "@/server/job-handlers/runners";')).toEqual([]);
  });
});

describe("src/lib is shared with the browser", () => {
  it.each([
    ['export { getServices } from "../server/services";', "import/no-restricted-paths"],
    ['export { AppError } from "@/server/errors";', "import/no-restricted-paths"],
    ['export { dashboardRouter } from "@/server/api/dashboard/router";', "import/no-restricted-paths"],
    ['export type { DashboardRouter } from "@/server/api/dashboard/router";', "import/no-restricted-paths"],
    ['export { PrismaClient } from "@prisma/client";', "no-restricted-imports"],
    ['export { readFileSync } from "node:fs";', "import/no-nodejs-modules"],
  ])("refuses %s", async (code, rule) => {
    expect(rulesOf(await broken("src/lib/probe.ts", code))).toContain(rule);
  });

  it("the dashboard's tRPC client, in src/components, takes the router's type and nothing else of it", async () => {
    expect(await broken("src/components/trpc/probe.ts", 'export type { DashboardRouter } from "@/server/api/dashboard/router";')).toEqual([]);
    expect(rulesOf(await broken("src/components/trpc/probe.ts", 'export { dashboardRouter } from "@/server/api/dashboard/router";'))).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });
});

describe("doors never hold the Prisma client", () => {
  const door = "src/server/api/dashboard/probe.ts";

  it.each([
    ["a client under another name", "export async function f(ctx: any) {\n  const store = ctx.services.db;\n  return store.payment.findMany();\n}"],
    ["a client destructured from the services", "export function f(services: any) {\n  const { db } = services;\n  return db;\n}"],
    ["a query on the services' client", "export const f = (ctx: any) => ctx.services.db.payment.findMany();"],
    ["a query on a client named db", "export const f = (db: any) => db.payment.findMany();"],
  ])("refuses %s", async (_name, code) => {
    const found = await broken(door, code);
    expect(rulesOf(found)).toContain("no-restricted-syntax");
    // The message says truly who may: the job queue queries its own table.
    expect(found[0]!.message).toContain("src/server/jobs");
  });

  it("the metrics count through services, never on the client themselves", async () => {
    const found = await broken("src/server/metrics/probe.ts", "export const f = (services: any) => services.db.walletHold.count();");
    expect(rulesOf(found)).toContain("no-restricted-syntax");
  });

  it.each([
    ["src/server/api/dashboard/probe.ts", 'export { createPrismaClient } from "../../db/client";'],
    ["src/server/http/probe.ts", 'export { createPrismaClient } from "@/server/db/client";'],
    ["src/server/metrics/probe.ts", 'export { createPrismaClient } from "@/server/db/client";'],
    ["src/app/probe/page.tsx", 'export { createPrismaClient } from "@/server/db/client";'],
  ])("%s may not import the client module: %s", async (file, code) => {
    expect(rulesOf(await broken(file, code))).toEqual(["@typescript-eslint/no-restricted-imports"]);
  });

  it("passes the client straight to a service call, and names its type", async () => {
    const code = [
      'import type { Db } from "@/server/db/client";',
      'import { listDashboardBatches } from "@/server/services/batches/dashboard";',
      "export const list = (ctx: any) => listDashboardBatches(ctx.services.db, ctx.merchantId, ctx.mode, {});",
      "export const vault = (services: any) => ({ db: services.db });",
      "export type Client = Db;",
    ].join("\n");
    expect(await broken(door, code)).toEqual([]);
  });

  it("the job queue may query its own table", async () => {
    expect(await broken("src/server/jobs/probe.ts", "export const f = (db: any) => db.job.findMany();")).toEqual([]);
  });
});

describe("only src/server/db knows the database dialect", () => {
  it.each([
    ["src/server/services/audit/probe.ts", 'import { dbProvider } from "@/server/db/client";\nexport const p = dbProvider;', "no-restricted-imports"],
    ["src/server/services/wallet/probe.ts", 'import { postgresPool } from "../../db/client";\nexport const p = postgresPool;', "no-restricted-imports"],
    ["src/server/jobs/probe.ts", 'import { providerFromUrl } from "@/server/db/provider";\nexport const p = providerFromUrl;', "no-restricted-imports"],
    ["src/server/config-probe.ts", 'import { providerFromUrl } from "./db/provider";\nexport const p = providerFromUrl;', "no-restricted-imports"],
    ["src/app/probe/page.tsx", 'import { dbProvider } from "@/server/db/client";\nexport const p = dbProvider;', "@typescript-eslint/no-restricted-imports"],
    [
      "src/server/services/batches/probe.ts",
      'export const f = (tx: any, id: string) => tx.$executeRaw`UPDATE "Merchant" SET "id" = "id" WHERE "id" = ${id}`;',
      "no-restricted-syntax",
    ],
    ["src/server/jobs/probe.ts", 'export const f = (db: any) => db.$queryRawUnsafe("SELECT 1");', "no-restricted-syntax"],
    ["src/server/services/wallet/probe.ts", 'export const f = (w: { provider: string }) => (w.provider === "postgresql" ? 1 : 2);', "no-restricted-syntax"],
    ["src/server/providers/probe.ts", 'export const f = (p: string) => (p !== "sqlite" ? 1 : 2);', "no-restricted-syntax"],
    [
      "src/server/services/probe.ts",
      'export function f(p: string) {\n  switch (p) {\n    case "sqlite":\n      return 1;\n  }\n  return 2;\n}',
      "no-restricted-syntax",
    ],
  ])("%s: %s", async (file, code, rule) => {
    const found = await broken(file, code);
    expect(rulesOf(found)).toContain(rule);
    expect(found.filter((f) => f.rule === rule).map((f) => f.message)).toContainEqual(expect.stringContaining("Only src/server/db knows the database dialect"));
  });

  it("src/server/db may; elsewhere the dialect's type and the URL helpers pass", async () => {
    const code = [
      'import { dbProvider } from "./client";',
      'import { providerFromUrl } from "./provider";',
      'export const a = (db: any) => (dbProvider(db) === "postgresql" ? db.$queryRaw`SELECT 1` : db.$executeRawUnsafe("SELECT 1"));',
      'export const b = (url: string) => providerFromUrl(url) === "sqlite";',
    ].join("\n");
    expect(await broken("src/server/db/probe.ts", code)).toEqual([]);
    const elsewhere = [
      'import type { DbProvider } from "@/server/db/provider";',
      'import { databaseUrlFromEnv, oneWriterProcess } from "@/server/db/provider";',
      "export const one = (): boolean => oneWriterProcess(databaseUrlFromEnv());",
      "export type P = DbProvider;",
    ].join("\n");
    expect(await broken("src/server/services/probe.ts", elsewhere)).toEqual([]);
  });
});

describe("errors are recognised by their brand, not by instanceof", () => {
  const code = 'import { AppError } from "@/server/errors";\nexport const known = (err: unknown) => err instanceof AppError;';

  it.each(["src/server/trpc/probe.ts", "src/server/services/payments/probe.ts", "src/app/probe/page.tsx", "scripts/probe.ts"])(
    "%s may not ask instanceof AppError",
    async (file) => {
      const found = await broken(file, code);
      expect(rulesOf(found)).toEqual(["no-restricted-syntax"]);
      expect(found[0]!.message).toContain("isAppError");
    },
  );

  it("isAppError passes, and a door keeps its Prisma rules beside it", async () => {
    expect(
      await broken("src/server/trpc/probe.ts", 'import { isAppError } from "@/server/errors";\nexport const known = (err: unknown) => isAppError(err);'),
    ).toEqual([]);
    expect(rulesOf(await broken("src/server/api/dashboard/probe.ts", "export const f = (db: any) => db.payment.findMany();"))).toContain(
      "no-restricted-syntax",
    );
  });
});

describe("functions and files fit on a screen", () => {
  const lines = (n: number, line: string) => Array.from({ length: n }, () => line).join("\n");
  async function sizeRules(file: string, code: string) {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return result!.messages.filter((m) => m.ruleId?.startsWith("max-lines")).map((m) => m.ruleId);
  }

  it.each(["src/server/services/payments/probe.ts", "src/app/probe.tsx", "scripts/probe.ts"])(
    "%s: a function of 81 lines is refused, 80 pass",
    async (file) => {
      const fn = (n: number) => `export function probe() {\n${lines(n - 2, "  console.log(1);")}\n}\n`;
      expect(await sizeRules(file, fn(81))).toEqual(["max-lines-per-function"]);
      expect(await sizeRules(file, fn(80))).toEqual([]);
    },
  );

  it("a file of 401 lines is refused; blank lines and comments do not count", async () => {
    const file = "src/server/lib/probe.ts";
    expect(
      await sizeRules(
        file,
        `${lines(401, "export const a = 1;")}\n`.replace(/a = 1/g, () => `a${Math.random().toString(36).slice(2)} = 1`),
      ),
    ).toEqual(["max-lines"]);
    expect(await sizeRules(file, `${lines(300, "// why")}\n\n${lines(400, "void 0;")}\n`)).toEqual([]);
  });
});

describe("the Node SDK stands alone", () => {
  it.each([
    ["packages/node/src/probe.ts", 'export { z } from "zod";', ["no-restricted-imports"]],
    ["packages/node/src/probe.ts", 'export { formatPaise } from "@/lib/money";', ["no-restricted-imports", "import/no-restricted-paths"]],
    ["packages/node/src/probe.ts", 'export { formatPaise } from "../../../src/lib/money";', ["import/no-restricted-paths"]],
  ])("%s may not import %s", async (file, code, rules) => {
    expect(rulesOf(await broken(file, code)).sort()).toEqual([...rules].sort());
  });

  it("imports Node's own modules and its own files", async () => {
    expect(await broken("packages/node/src/probe.ts", 'export { createHmac } from "node:crypto";\nexport { VERSION } from "./version.js";')).toEqual([]);
  });
});
