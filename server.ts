import { loadEnvFile } from "@/server/env-file";
import { startParakh } from "@/server/http/start";

// Settings from .env under the real environment, before anything reads them.
loadEnvFile();

// Next reports usage to its makers unless told not to: a payments server calls no one it was not
// configured to (NEXT_TELEMETRY_DISABLED=0 turns it back on).
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

// Everything this process creates (database, WAL files, secrets) is readable by its user only.
process.umask(0o077);

// REST doors (/v1, /api) outside Next's pipeline, everything else handed to Next; in one process, or in
// WEB_CONCURRENCY cluster workers under a primary (this same file runs in each).
const dev = process.argv.includes("--dev") || process.env.NODE_ENV !== "production";
const servePages = process.env.SERVE_PAGES !== "false";
// The demo merchant is for local development; production seeds one only when asked (SEED_DEMO=true).
const seedDemo = process.env.SEED_DEMO ? process.env.SEED_DEMO === "true" : dev && !process.env.DATABASE_URL;

startParakh({ dev, servePages, seedDemo }).catch((err: unknown) => {
  process.stderr.write(`Parakh failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
