// Databases that tests set up in their own process. A fresh SQLite file starts as a copy of the
// integration run's migrated template, so migrating it is a quick look; PostgreSQL gets the same from
// startPostgres({ migrated: true }).
import fs from "node:fs";

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
