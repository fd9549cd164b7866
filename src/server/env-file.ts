import fs from "node:fs";
import path from "node:path";
import { parse } from "dotenv";
import { PROJECT_ROOT } from "@/server/lib/runtime-files";

/**
 * Loads settings from the project's `.env` into `process.env`, under the real environment: a
 * variable already set (even to "") is never replaced. The server, the CLI and every npm script
 * call this first, so they all read the same settings and open the same database.
 * `PARAKH_ENV_FILE` names another file, or `none` for no file (the test suites' own servers).
 * Returns the file that was read, if any.
 */
export function loadEnvFile(env: Record<string, string | undefined> = process.env): string | undefined {
  const choice = env.PARAKH_ENV_FILE;
  if (choice === "none") return undefined;
  const file = path.resolve(PROJECT_ROOT, choice || ".env");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && !choice) return undefined;
    throw new Error(`Cannot read the settings file ${file}: ${(err as Error).message}`);
  }
  for (const [key, value] of Object.entries(parse(text))) {
    if (!(key in env)) env[key] = value;
  }
  // Next would otherwise read its own set of .env files into the server, which the CLI never sees.
  env.__NEXT_PROCESSED_ENV = "true";
  return file;
}
