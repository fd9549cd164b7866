// npm run db:migrate: applies prisma/migrations/<provider> to DATABASE_URL (default: the
// embedded SQLite file in DATA_DIR), with settings from .env like the server. Reports on stderr; stdout stays quiet.
import { applyMigrations } from "../src/server/db/migrate";
import { loadEnvFile } from "../src/server/env-file";
import { databaseUrlFromEnv, providerFromUrl, redactUrl } from "../src/server/db/provider";

async function main() {
  loadEnvFile();
  const url = databaseUrlFromEnv();
  const started = Date.now();
  const { applied } = await applyMigrations(url);
  const where = `${providerFromUrl(url)} ${redactUrl(url)}`;
  if (applied.length === 0) console.error(`No pending migrations (${where})`);
  else console.error(`Applied ${applied.length} migration(s) to ${where} in ${Date.now() - started} ms:\n  ${applied.join("\n  ")}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
