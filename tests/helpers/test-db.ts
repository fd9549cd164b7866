// Databases that tests set up in their own process. A fresh SQLite file starts as a copy of the
// integration run's migrated template, so migrating it is a quick look; PostgreSQL gets the same from
// startPostgres({ migrated: true }).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AtomicWriter } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";

/** Set by the integration run's global set-up: a SQLite database with every migration applied, to copy. */
export const SQLITE_TEMPLATE_ENV = "PARAKH_TEST_SQLITE_TEMPLATE";

/** Copies the run's migrated SQLite template to `file` (when there is a template and no file yet). */
export function copySqliteTemplate(file: string): void {
  const template = process.env[SQLITE_TEMPLATE_ENV];
  if (template && !fs.existsSync(file)) fs.copyFileSync(template, file);
}

/** Brings a test's database to the current migrations, from the template where it can. */
export async function migrateTestDatabase(url: string): Promise<void> {
  if (/^file:/.test(url)) copySqliteTemplate(url.replace(/^file:/, "").replace(/\?.*$/, ""));
  const { applyMigrations } = await import("@/server/db/migrate");
  await applyMigrations(url);
}

/** A migrated database of its own for a suite: a SQLite file in a temp folder, or a PostgreSQL database. */
export async function openTestDatabase(target: "sqlite" | "postgresql", prefix: string): Promise<{ url: string; stop: () => Promise<void> }> {
  if (target === "postgresql") {
    const { startPostgres } = await import("./postgres");
    const pg = await startPostgres({ migrated: true });
    await migrateTestDatabase(pg.url);
    return { url: pg.url, stop: () => pg.stop() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const url = `file:${path.join(dir, "test.db")}`;
  await migrateTestDatabase(url);
  return { url, stop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A migrated database of its own with a Prisma client and the app's atomic writer on it, as the services use them. */
export async function openTestWriter(
  target: "sqlite" | "postgresql",
  prefix: string,
): Promise<{ db: Db; writer: AtomicWriter; url: string; close: () => Promise<void> }> {
  const { url, stop } = await openTestDatabase(target, prefix);
  const { createPrismaClient } = await import("@/server/db/client");
  const { createAtomicWriter } = await import("@/server/db/atomic-write");
  const db = createPrismaClient(url);
  const writer = createAtomicWriter(db, url);
  return {
    db,
    writer,
    url,
    close: async () => {
      writer.close();
      await db.$disconnect();
      await stop();
    },
  };
}
