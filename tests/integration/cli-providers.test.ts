import net from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeCashfreeVerification, startFakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { cli, cliProcess, tempDataDir, type CliResult } from "../helpers/server";

// `providers check` reads only the settings: no database is opened (SQLite names one only because
// the in-process runner keys its cache on it). The first calls run the CLI as a process, the rest
// its same command code in this process.
const CREDENTIALS = { clientId: "CF_TEST_CLIENT", clientSecret: "cfsk_live_check_secret_do_not_print" };
const FAMILIES = ["pan", "epfo", "aadhaar", "bank"];

describe("operator CLI: providers check", () => {
  let base: NodeJS.ProcessEnv;
  let fake: FakeCashfreeVerification;

  const live = (overrides: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...base,
    LIVE_VERIFICATION_PROVIDER: "cashfree",
    CASHFREE_VERIFICATION_BASE_URL: fake.url,
    CASHFREE_VERIFICATION_CLIENT_ID: CREDENTIALS.clientId,
    CASHFREE_VERIFICATION_CLIENT_SECRET: CREDENTIALS.clientSecret,
    ...overrides,
  });

  const statuses = (r: CliResult) => Object.fromEntries((r.json.families as { family: string; status: string }[]).map((f) => [f.family, f.status]));

  /** Nothing secret or personal in what an operator sees or pastes into a ticket. */
  const expectNothingSecret = (r: CliResult) => {
    const all = r.stdout + r.stderr;
    expect(all).not.toContain(CREDENTIALS.clientSecret);
    expect(all).not.toMatch(/\b\d{4}\s?\d{4}\s?\d{4}\b/);
  };

  beforeAll(async () => {
    const dataDir = tempDataDir("parakh-cli-providers-");
    base = { ...process.env, PARAKH_ENV_FILE: "none", DATA_DIR: dataDir, DATABASE_URL: `file:${path.join(dataDir, "parakh.db")}`, LOG_LEVEL: "warn" };
    delete base.LIVE_VERIFICATION_PROVIDER;
    fake = await startFakeCashfreeVerification(CREDENTIALS);
  });

  afterEach(() => {
    fake.clear();
    expect(fake.problems).toEqual([]);
  });

  afterAll(async () => {
    await fake.close();
  });

  it("says so and exits 0 when no provider is configured, without calling anyone", async () => {
    const calls = fake.count();
    const json = await cliProcess(base, ["providers", "check", "--json"]);
    expect(json.code).toBe(0);
    expect(json.stdout.trim().split("\n")).toHaveLength(1);
    expect(json.json).toEqual({ provider: "none", baseUrl: null, ok: true, families: [] });
    expect(json.stderr).not.toContain("Database:");
    const text = await cli(base, ["providers", "check"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("No live verification provider is configured (LIVE_VERIFICATION_PROVIDER=none)");
    expect(fake.count()).toBe(calls);
  });

  it("reports every family ok against the vendor, exit 0, one JSON object", async () => {
    const r = await cliProcess(live(), ["providers", "check", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(r.json).toMatchObject({ provider: "cashfree", baseUrl: fake.url, ok: true });
    expect(r.json.families.map((f: { family: string }) => f.family)).toEqual(FAMILIES);
    expect(statuses(r)).toEqual({ pan: "ok", epfo: "ok", aadhaar: "ok", bank: "ok" });
    for (const f of r.json.families) expect(Object.keys(f).sort()).toEqual(["detail", "family", "ms", "status"]);
    expectNothingSecret(r);
    // Status reads only: the check creates no verification at the vendor.
    expect(fake.requests.map((q) => `${q.method} ${q.path}`).sort()).toEqual(["GET /bank-account", "GET /pan/0", "GET /pan/0", "GET /pan/0"]);

    const text = await cli(live(), ["providers", "check"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Live verification: cashfree at ${fake.url}`);
    expect(text.stdout).toMatch(/^ {2}bank +ok +\d+ ms {2}credentials accepted \(HTTP 404 reference_id_not_found\)$/m);
    expect(text.stdout).toContain("All families ok.");
  });

  it("reports misconfigured when the vendor answers 401 or 403, and exits 1", async () => {
    const wrong = await cli(live({ CASHFREE_VERIFICATION_CLIENT_SECRET: "cfsk_live_not_the_right_one" }), ["providers", "check", "--json"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout.trim().split("\n")).toHaveLength(1);
    expect(wrong.json.ok).toBe(false);
    expect(statuses(wrong)).toEqual({ pan: "misconfigured", epfo: "misconfigured", aadhaar: "misconfigured", bank: "misconfigured" });
    expect(wrong.json.families[0].detail).toContain("HTTP 401, authentication_failed");
    expect(wrong.stdout).not.toContain("cfsk_live_not_the_right_one");
    expectNothingSecret(wrong);

    fake.fail("bank", "401");
    const one = await cli(live(), ["providers", "check"]);
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(/^ {2}bank +misconfigured .*HTTP 401, authentication_failed/m);
    expect(one.stdout).toMatch(/^ {2}pan +ok /m);
    expect(one.stdout).toContain("Not every family is ok");

    fake.fail("pan", "403");
    fake.clear("bank");
    const address = await cli(live(), ["providers", "check", "--json"]);
    expect(address.code).toBe(1);
    expect(statuses(address)).toEqual({ pan: "misconfigured", epfo: "misconfigured", aadhaar: "misconfigured", bank: "ok" });
    expectNothingSecret(address);
  });

  it("reports unreachable for a closed port, a 5xx and a vendor past the deadline, and exits 1", async () => {
    const closed = await cli(live({ CASHFREE_VERIFICATION_BASE_URL: `http://127.0.0.1:${await closedPort()}` }), ["providers", "check", "--json"]);
    expect(closed.code).toBe(1);
    expect(statuses(closed)).toEqual({ pan: "unreachable", epfo: "unreachable", aadhaar: "unreachable", bank: "unreachable" });
    expect(closed.json.families[0].detail).toContain("could not be reached (ECONNREFUSED)");
    expectNothingSecret(closed);

    fake.fail("bank", "500");
    const failing = await cli(live(), ["providers", "check", "--json"]);
    expect(failing.code).toBe(1);
    expect(statuses(failing)).toEqual({ pan: "ok", epfo: "ok", aadhaar: "ok", bank: "unreachable" });

    fake.fail("bank", "hang");
    const started = Date.now();
    const slow = await cli(live({ UPSTREAM_TIMEOUT_MS: "400" }), ["providers", "check"]);
    expect(Date.now() - started).toBeLessThan(400 + 1_000);
    expect(slow.code).toBe(1);
    expect(slow.stdout).toMatch(/^ {2}bank +unreachable .*did not answer within 400 ms/m);
  });

  it("refuses to run with the vendor chosen and a credential missing, naming the setting", async () => {
    const calls = fake.count();
    const r = await cliProcess(live({ CASHFREE_VERIFICATION_CLIENT_SECRET: "" }), ["providers", "check", "--json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("CASHFREE_VERIFICATION_CLIENT_SECRET: required when LIVE_VERIFICATION_PROVIDER=cashfree");
    expect(r.stdout).toBe("");
    expect(fake.count()).toBe(calls);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
