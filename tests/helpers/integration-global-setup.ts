// Shared set-up of the integration run, so a test file costs seconds, not tens of seconds:
// - one PostgreSQL cluster: each file gets fresh databases on it (startPostgres);
// - a migrated SQLite file and a migrated PostgreSQL template database: a fresh database for a
//   server starts as a copy of them (startServer, startFor) instead of running every migration;
// - the server and CLI bundled once (startServer, cliProcess run them).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyMigrations } from "@/server/db/migrate";
import { DB_TARGETS } from "./db-targets";
import { PG_TEMPLATE_ENV, SHARED_CLUSTER_ENV, startCluster } from "./postgres";
import { SQLITE_TEMPLATE_ENV } from "./test-db";
import { BUNDLE_DIR_ENV } from "./server";
import { buildServerBundle } from "../../scripts/build-server";

const ROOT = path.resolve(__dirname, "../..");

const PG_TEMPLATE_NAME = "parakh_template";

// The two integration projects (vitest.config.mts) each name this set-up, and vitest runs them side
// by side in one process: the first call does the work, the other waits for it and leaves the teardown
// to the first (two migrations at once crash Prisma's schema engine).
const shared = globalThis as { parakhIntegrationSetup?: Promise<(() => Promise<void> | void) | undefined> };

export default async function setup() {
  if (shared.parakhIntegrationSetup) {
    await shared.parakhIntegrationSetup;
    return undefined;
  }
  shared.parakhIntegrationSetup = setUpOnce();
  return shared.parakhIntegrationSetup;
}

async function setUpOnce() {
  if (process.env[SHARED_CLUSTER_ENV]) return undefined;
  // The servers and CLI processes the tests start run bundled, as `npm start` does, and load on about
  // 80% of the CPU the sources through tsx take: ~150 server starts a run. Built here from the
  // sources as they are now, inside the project so that packages resolve.
  fs.mkdirSync(path.join(ROOT, "node_modules/.cache"), { recursive: true });
  const bundleDir = fs.mkdtempSync(path.join(ROOT, "node_modules/.cache/parakh-test-bundle-"));
  await buildServerBundle(bundleDir);
  process.env[BUNDLE_DIR_ENV] = bundleDir;
  const cleanBundle = () => fs.rmSync(bundleDir, { recursive: true, force: true });
  const sqliteTemplate = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parakh-template-")), "parakh.db");
  await applyMigrations(`file:${sqliteTemplate}`);
  process.env[SQLITE_TEMPLATE_ENV] = sqliteTemplate;
  const cleanTemplate = () => {
    fs.rmSync(path.dirname(sqliteTemplate), { recursive: true, force: true });
    delete process.env[BUNDLE_DIR_ENV];
    cleanBundle();
  };
  // `TEST_DB=sqlite`: no PostgreSQL at all.
  if (!DB_TARGETS.includes("postgresql")) return cleanTemplate;
  // Two files at a time, each with a few servers (a pool of 10 each) and its own clients.
  const cluster = await startCluster({ maxConnections: 400 });
  await applyMigrations(await cluster.createDatabase(PG_TEMPLATE_NAME));
  process.env[SHARED_CLUSTER_ENV] = cluster.base;
  process.env[PG_TEMPLATE_ENV] = PG_TEMPLATE_NAME;
  return async () => {
    for (const name of [SHARED_CLUSTER_ENV, PG_TEMPLATE_ENV, SQLITE_TEMPLATE_ENV]) delete process.env[name];
    await cluster.stop();
    cleanTemplate();
  };
}
