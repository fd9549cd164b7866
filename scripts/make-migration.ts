// npm run db:migration -- <name>
// Writes prisma/migrations/<provider>/<timestamp>_<name>/migration.sql for each provider whose
// migrations lag behind prisma/schema.prisma. PostgreSQL replays its migrations in a throwaway
// cluster (or in SHADOW_DATABASE_URL, an empty database, when set).
import fs from "node:fs";
import path from "node:path";
import { diffSchemaToMigrations, migrationLockToml } from "../src/server/db/migrate";
import { DB_PROVIDERS, migrationsDir, type DbProvider } from "../src/server/db/provider";
import { loadEnvFile } from "../src/server/env-file";
import { startPostgres, type PostgresCluster } from "../tests/helpers/postgres";

function timestamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

async function main() {
  loadEnvFile();
  const raw = process.argv.slice(2).join("_");
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!name) {
    console.error("usage: npm run db:migration -- <name>");
    process.exit(2);
  }
  const folder = `${timestamp()}_${name}`;

  const sql = new Map<DbProvider, string>();
  sql.set("sqlite", await diffSchemaToMigrations("sqlite"));

  let cluster: PostgresCluster | undefined;
  try {
    let scratchUrl = process.env.SHADOW_DATABASE_URL;
    if (!scratchUrl) {
      cluster = await startPostgres();
      scratchUrl = cluster.url;
    }
    sql.set("postgresql", await diffSchemaToMigrations("postgresql", { scratchUrl }));
  } finally {
    await cluster?.stop();
  }

  let written = 0;
  for (const provider of DB_PROVIDERS) {
    const dir = migrationsDir(provider);
    const script = sql.get(provider) ?? "";
    if (!script) {
      console.error(`${provider}: migrations already match the schema`);
      continue;
    }
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    fs.writeFileSync(path.join(dir, folder, "migration.sql"), script);
    const lock = path.join(dir, "migration_lock.toml");
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, migrationLockToml(provider));
    console.error(`${provider}: wrote ${path.relative(process.cwd(), path.join(dir, folder, "migration.sql"))}`);
    written++;
  }
  if (written === 1) console.error("Warning: only one provider changed; check the other provider's migrations.");
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
