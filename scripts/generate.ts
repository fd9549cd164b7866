// Generates one Prisma client per provider from prisma/schema.prisma: SQLite into
// src/generated/prisma, PostgreSQL (a derived copy of the schema) into src/generated/prisma-postgres.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { schemaForProvider } from "../src/server/db/provider";

const root = path.resolve(__dirname, "..");
const schemaFile = path.join(root, "prisma", "schema.prisma");
const prismaCli = path.join(root, "node_modules", "prisma", "build", "index.js");

function generate(schema: string): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The CLI wants to download a schema-engine binary it does not need for `generate`; any
    // existing file stops that.
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? schemaFile,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [prismaCli, "generate", "--schema", schema], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`prisma generate --schema ${schema} failed (${code}):\n${output}`))));
  });
}

async function main() {
  const started = Date.now();
  if (!fs.existsSync(prismaCli)) throw new Error(`Prisma CLI not found at ${prismaCli}; run npm install`);

  // The derived schema lives in an ignored cache folder; its output path must be absolute.
  const cacheDir = path.join(root, "node_modules", ".cache", "parakh");
  fs.mkdirSync(cacheDir, { recursive: true });
  const pgSchema = path.join(cacheDir, "schema.postgresql.prisma");
  const pgOutput = path.join(root, "src", "generated", "prisma-postgres");
  fs.writeFileSync(pgSchema, schemaForProvider(fs.readFileSync(schemaFile, "utf8"), "postgresql", pgOutput));

  await Promise.all([generate(schemaFile), generate(pgSchema)]);
  console.log(`Prisma clients generated (sqlite, postgresql) in ${Date.now() - started} ms`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
