import fs from "node:fs";
import path from "node:path";

// The only folder allowed to branch on the database provider.

export type DbProvider = "sqlite" | "postgresql";
export const DB_PROVIDERS: readonly DbProvider[] = ["sqlite", "postgresql"];

/** postgres:// or postgresql:// → postgresql; file: URLs and plain paths → sqlite. */
export function providerFromUrl(url: string): DbProvider {
  const u = url.trim();
  if (/^postgres(ql)?:\/\//i.test(u)) return "postgresql";
  if (/^file:/i.test(u)) return "sqlite";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) {
    throw new Error(`Unsupported DATABASE_URL scheme: ${u.split(":")[0]}: (use postgresql:// or a SQLite file path)`);
  }
  return "sqlite";
}

/**
 * Whether the database takes one writing process only: SQLite has one write lock per file, and
 * processes contending for it served PAN verify at 0.28× one worker's rate in the bench (PostgreSQL: 1.25×).
 */
export function oneWriterProcess(databaseUrl: string): boolean {
  return providerFromUrl(databaseUrl) === "sqlite";
}

let cachedRoot: string | undefined;

/** The folder holding prisma/schema.prisma, found upwards from the working directory. */
export function projectRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = process.cwd();
  for (;;) {
    if (fs.existsSync(path.join(dir, "prisma", "schema.prisma"))) return (cachedRoot = dir);
    const parent = path.dirname(dir);
    if (parent === dir) return (cachedRoot = process.cwd());
    dir = parent;
  }
}

/** The data folder (DATA_DIR, default `data`), resolved against the working directory as the server does. */
export function dataDirFromEnv(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), env.DATA_DIR?.trim() || "data");
}

/** DATABASE_URL, or the embedded SQLite file in the data folder: the server, the CLI and scripts agree. */
export function databaseUrlFromEnv(env: Record<string, string | undefined> = process.env): string {
  const url = env.DATABASE_URL?.trim();
  return url ? url : `file:${path.join(dataDirFromEnv(env), "parakh.db")}`;
}

/**
 * Absolute file path of a SQLite URL (`file:x.db`, `file:./x.db`, `/abs/x.db`, `x.db`), or
 * ":memory:". Relative paths resolve against the project root, not the working directory, so
 * scripts, tests and the server agree wherever they are started.
 */
export function sqliteFilePath(url: string): string {
  let p = url.trim().replace(/^file:(\/\/(?=\/))?/i, "");
  const q = p.indexOf("?");
  if (q >= 0) p = p.slice(0, q);
  if (p === ":memory:" || p === "") return ":memory:";
  return path.resolve(projectRoot(), p);
}

/** A URL safe to print: the password is masked. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}

export function schemaPath(): string {
  return path.join(projectRoot(), "prisma", "schema.prisma");
}

export function migrationsDir(provider: DbProvider): string {
  return path.join(projectRoot(), "prisma", "migrations", provider);
}

/**
 * The schema for one provider: the committed schema with only the datasource provider (and,
 * if given, the generator output) replaced.
 */
export function schemaForProvider(source: string, provider: DbProvider, generatorOutput?: string): string {
  let out = replaceInBlock(source, "datasource", /(\n\s*provider\s*=\s*)"[^"]*"/, `$1"${provider}"`);
  if (generatorOutput !== undefined) {
    out = replaceInBlock(out, "generator", /(\n\s*output\s*=\s*)"[^"]*"/, `$1${JSON.stringify(generatorOutput)}`);
  }
  return out;
}

export function readSchemaForProvider(provider: DbProvider): string {
  return schemaForProvider(fs.readFileSync(schemaPath(), "utf8"), provider);
}

function replaceInBlock(source: string, kind: string, re: RegExp, replacement: string): string {
  const block = new RegExp(`(^|\\n)${kind}\\s+\\w+\\s*\\{[^}]*\\}`);
  const m = block.exec(source);
  if (!m || !re.test(m[0])) throw new Error(`prisma/schema.prisma: no ${kind} block with the expected setting`);
  return source.slice(0, m.index) + m[0].replace(re, replacement) + source.slice(m.index + m[0].length);
}
