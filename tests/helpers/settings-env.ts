import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The least environment `configFrom` accepts: a fresh data folder and fixed keys, for tests of settings. */
export function settingsEnv(prefix = "parakh-settings-"): NodeJS.ProcessEnv {
  const key = Buffer.alloc(32, 1).toString("base64");
  return { NODE_ENV: "test", DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), prefix)), ENCRYPTION_KEY: key, HASH_KEY: key, NEXTAUTH_SECRET: "x".repeat(40) };
}
