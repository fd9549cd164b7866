import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readmeCommands } from "../../scripts/readme-commands";
import { cli, cliProcess, tempDataDir } from "../helpers/server";

// The first calls of each kind run the CLI as a process (exit codes, stdout, stderr); the rest run its
// commands in this process (`cli`: the same command code and output, without a process start each).
describe("operator CLI", () => {
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    const dataDir = tempDataDir("parakh-cli-");
    env = { ...process.env, PARAKH_ENV_FILE: "none", DATA_DIR: dataDir, DATABASE_URL: `file:${path.join(dataDir, "parakh.db")}`, LOG_LEVEL: "warn" };
  });
  afterAll(() => undefined);

  it("creates a merchant and prints exactly one JSON object", async () => {
    const r = await cliProcess(env, [
      "merchant",
      "create",
      "--name",
      "Acme Traders",
      "--email",
      "Owner@Acme.example",
      "--password",
      "a-long-password",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(Object.keys(r.json).sort()).toEqual(["email", "merchantId", "sandbox"]);
    expect(r.json.merchantId).toMatch(/^mer_[A-Za-z0-9]{16}$/);
    expect(r.json.email).toBe("owner@acme.example");
    expect(r.json.sandbox.publicKey).toMatch(/^pk_test_[A-Za-z0-9]+$/);
    expect(r.json.sandbox.secretKey).toMatch(/^sk_test_[A-Za-z0-9]+$/);
    expect(r.json.sandbox.signingSecret).toMatch(/^whsec_[A-Za-z0-9]+$/);
  });

  it("prints what the README's quick start shows for merchant create", async () => {
    const readme = fs.readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
    const shown = readmeCommands(readme).find((c) => c.command.startsWith("npm run -s cli -- merchant create") && c.promised);
    expect(shown, "the README shows merchant create --json with its output").toBeDefined();
    const email = /--email (\S+)/.exec(shown!.command)![1]!;
    const r = await cli(env, ["merchant", "create", "--name", "Readme Shop", "--email", email, "--password", "a-long-password", "--json"]);
    expect(r.code).toBe(0);
    // The same fields, the same shapes: ids and keys differ on every run.
    const shape = (v: unknown): unknown =>
      v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)])) : String(v).replace(/[A-Za-z0-9]+$/, "…");
    expect(shape(shown!.promised)).toEqual(shape(r.json));
    expect((shown!.promised as { email: string }).email).toBe(email);
    // The README names which printed fields the examples' variables are.
    for (const line of ["`$MERCHANT_ID` is `merchantId`", "`$PUBLIC_KEY` is\n`sandbox.publicKey`", "`$SECRET_KEY` is `sandbox.secretKey`"]) {
      expect(readme.replace(/\s+/g, " ")).toContain(line.replace(/\s+/g, " "));
    }
  });

  it("refuses a duplicate email and bad input with a JSON error and exit 1", async () => {
    const dup = await cliProcess(env, ["merchant", "create", "--name", "Again", "--email", "owner@acme.example", "--password", "a-long-password", "--json"]);
    expect(dup.code).toBe(1);
    expect(dup.json.error.code).toBe("CONFLICT");
    const weak = await cli(env, ["merchant", "create", "--name", "Weak", "--email", "weak@acme.example", "--password", "short", "--json"]);
    expect(weak.code).toBe(1);
    expect(weak.json.error.code).toBe("VALIDATION_ERROR");
  });

  it("prints usage and exits non-zero on wrong arguments", async () => {
    const none = await cliProcess(env, []);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage: npm run -s cli --");
    expect(none.stdout).toBe("");
    for (const args of [
      ["merchant"],
      ["merchant", "fly"],
      ["merchant", "create", "--name", "X"],
      ["key", "create", "--bogus", "1"],
      ["whitelist", "add", "--merchant"],
    ]) {
      const r = await cli(env, args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("Usage: npm run -s cli --");
      expect(r.stdout).toBe("");
    }
  });

  it("manages the whitelist, keys, go-live, suspension and admins", async () => {
    const m = (await cli(env, ["merchant", "create", "--name", "Ops", "--email", "ops@acme.example", "--password", "a-long-password", "--json"])).json;
    const id = m.merchantId;

    const added = await cli(env, ["whitelist", "add", "--merchant", id, "--ip", "203.0.113.0/24", "--label", "office", "--json"]);
    expect(added.json).toMatchObject({ merchantId: id, ip: "203.0.113.0/24", label: "office" });
    const v6 = await cli(env, ["whitelist", "add", "--merchant", id, "--ip", "2001:0DB8::1", "--json"]);
    expect(v6.json.ip).toBe("2001:db8::1");
    const bad = await cli(env, ["whitelist", "add", "--merchant", id, "--ip", "10.0.0.5/8", "--json"]);
    expect(bad.code).toBe(1);
    expect(bad.json.error.code).toBe("VALIDATION_ERROR");
    const listed = await cli(env, ["whitelist", "list", "--merchant", id, "--json"]);
    expect(listed.json.entries.map((e: { ip: string }) => e.ip)).toEqual(["203.0.113.0/24", "2001:db8::1"]);
    expect((await cli(env, ["whitelist", "remove", "--merchant", id, "--ip", "2001:db8:0::1"])).code).toBe(0);
    expect((await cli(env, ["whitelist", "list", "--merchant", id, "--json"])).json.entries).toHaveLength(1);

    const created = await cli(env, ["key", "create", "--merchant", id, "--label", "CI", "--json"]);
    expect(created.json).toMatchObject({ merchantId: id, mode: "sandbox" });
    const live = await cli(env, ["key", "create", "--merchant", id, "--mode", "live", "--json"]);
    expect(live.json.error.code).toBe("LIVE_MODE_NOT_ENABLED");
    expect((await cli(env, ["merchant", "go-live", "--merchant", id, "--json"])).json).toMatchObject({ liveEnabled: true });
    expect((await cli(env, ["key", "create", "--merchant", id, "--mode", "live", "--json"])).json.publicKey).toMatch(/^pk_live_/);
    const rotated = await cli(env, ["key", "rotate", "--merchant", id, "--key", created.json.keyId, "--grace-seconds", "60", "--json"]);
    expect(rotated.json).toMatchObject({ replacedKeyId: created.json.keyId, graceSeconds: 60 });
    expect((await cli(env, ["key", "revoke", "--merchant", id, "--key", rotated.json.keyId, "--json"])).json.revoked).toBe(true);
    const keys = (await cli(env, ["key", "list", "--merchant", id, "--json"])).json.keys;
    expect(keys).toHaveLength(4);
    expect(JSON.stringify(keys)).not.toContain("sk_test_" + rotated.json.secretKey.slice(8));

    expect((await cli(env, ["merchant", "suspend", "--merchant", id, "--json"])).json.status).toBe("SUSPENDED");
    expect((await cli(env, ["merchant", "reinstate", "--merchant", id, "--json"])).json.status).toBe("ACTIVE");
    expect((await cli(env, ["merchant", "suspend", "--merchant", "mer_missing", "--json"])).json.error.code).toBe("NOT_FOUND");

    const admin = await cli(env, ["admin", "create", "--email", "root@parakh.example", "--password", "a-long-password", "--json"]);
    expect(admin.json).toMatchObject({ email: "root@parakh.example" });
    expect(admin.json.adminId).toMatch(/^adm_/);
  });
});
