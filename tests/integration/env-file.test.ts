import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { cli, startServer, tempDataDir, type TestServer } from "../helpers/server";

// The server and the CLI read one .env: a merchant the CLI creates is in the database the server uses.
describe("settings from a .env file", () => {
  let dir: string;
  let file: string;
  let server: TestServer;
  // Only what a shell would have: the storage settings come from the file.
  const shell = (): NodeJS.ProcessEnv => ({ NODE_ENV: "production", PATH: process.env.PATH, HOME: process.env.HOME, PARAKH_ENV_FILE: file });

  beforeAll(async () => {
    dir = tempDataDir("parakh-envfile-");
    file = path.join(dir, "settings.env");
    fs.writeFileSync(file, `DATA_DIR=${path.join(dir, "prod-data")}\nRATE_LIMIT_PER_SECOND=500\n`);
    server = await startServer({ env: { PARAKH_ENV_FILE: file, DATA_DIR: undefined, DATABASE_URL: undefined } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("the CLI opens the database the file names, says so on stderr, and the server sees its merchant", async () => {
    const email = `envfile${Date.now()}@example.com`;
    const r = await cli(shell(), ["merchant", "create", "--name", "Env Store", "--email", email, "--password", "correct-horse-battery", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const dbFile = path.join(dir, "prod-data", "parakh.db");
    expect(r.stderr).toContain(`Database: sqlite file:${dbFile}`);
    expect(r.stderr).toContain(`settings from ${file}`);
    expect(fs.existsSync(dbFile)).toBe(true);
    const verify = await request(server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F" },
      headers: { Authorization: `Bearer ${r.json.sandbox.secretKey}` },
    });
    expect(verify.status, verify.text).toBe(200);
  });

  it("a variable set in the real environment wins over the file", async () => {
    const other = path.join(dir, "other-data");
    const r = await cli({ ...shell(), DATA_DIR: other }, ["merchant", "list", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Database: sqlite file:${path.join(other, "parakh.db")}`);
  });
});
