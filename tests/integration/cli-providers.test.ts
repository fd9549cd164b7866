import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeCashfreePg, startFakeCashfreePg } from "../helpers/fake-cashfree-pg";
import { FakeCashfreeVerification, startFakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { cli, cliProcess, tempDataDir, type CliResult } from "../helpers/server";

// `providers check` reads only the settings: no database is opened (SQLite names one only because
// the in-process runner keys its cache on it). The first calls run the CLI as a process, the rest
// its same command code in this process.
const CREDENTIALS = { clientId: "CF_TEST_CLIENT", clientSecret: "cfsk_live_check_secret_do_not_print" };
const FAMILIES = ["pan", "epfo", "aadhaar", "bank", "payments"];
const PG_CREDENTIALS = { clientId: "CF_PG_CHECK_CLIENT", clientSecret: "cfsk_ma_pg_check_secret_do_not_print" };
const PAYMENTS_NONE = {
  family: "payments",
  vendor: "none",
  status: "not-configured",
  detail: "LIVE_PAYMENT_PROVIDER=none: live checkout and refunds answer 503 SERVICE_UNAVAILABLE",
  ms: 0,
};

describe("operator CLI: providers check", () => {
  let base: NodeJS.ProcessEnv;
  let fake: FakeCashfreeVerification;
  let pg: FakeCashfreePg;

  const live = (overrides: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...base,
    LIVE_VERIFICATION_PROVIDER: "cashfree",
    CASHFREE_VERIFICATION_BASE_URL: fake.url,
    CASHFREE_VERIFICATION_CLIENT_ID: CREDENTIALS.clientId,
    CASHFREE_VERIFICATION_CLIENT_SECRET: CREDENTIALS.clientSecret,
    LIVE_PAYMENT_PROVIDER: "cashfree",
    CASHFREE_PG_BASE_URL: pg.url,
    CASHFREE_PG_CLIENT_ID: PG_CREDENTIALS.clientId,
    CASHFREE_PG_CLIENT_SECRET: PG_CREDENTIALS.clientSecret,
    ...overrides,
  });

  const statuses = (r: CliResult) => Object.fromEntries((r.json.families as { family: string; status: string }[]).map((f) => [f.family, f.status]));

  /** Nothing secret or personal in what an operator sees or pastes into a ticket. */
  const expectNothingSecret = (r: CliResult) => {
    const all = r.stdout + r.stderr;
    expect(all).not.toContain(CREDENTIALS.clientSecret);
    expect(all).not.toContain(PG_CREDENTIALS.clientSecret);
    expect(all).not.toMatch(/\b\d{4}\s?\d{4}\s?\d{4}\b/);
  };

  beforeAll(async () => {
    const dataDir = tempDataDir("parakh-cli-providers-");
    base = { ...process.env, PARAKH_ENV_FILE: "none", DATA_DIR: dataDir, DATABASE_URL: `file:${path.join(dataDir, "parakh.db")}`, LOG_LEVEL: "warn" };
    delete base.LIVE_VERIFICATION_PROVIDER;
    delete base.LIVE_PAYMENT_PROVIDER;
    fake = await startFakeCashfreeVerification(CREDENTIALS);
    pg = await startFakeCashfreePg(PG_CREDENTIALS);
  });

  afterEach(() => {
    fake.clear();
    pg.clear();
    expect(fake.problems).toEqual([]);
    expect(pg.problems).toEqual([]);
  });

  afterAll(async () => {
    await fake.close();
    await pg.close();
  });

  it("says so and exits 0 when no provider is configured, without calling anyone; payments shown not-configured", async () => {
    const calls = fake.count();
    const json = await cliProcess(base, ["providers", "check", "--json"]);
    expect(json.code).toBe(0);
    expect(json.stdout.trim().split("\n")).toHaveLength(1);
    expect(json.json).toEqual({
      provider: "none",
      baseUrl: null,
      payments: { provider: "none", baseUrl: null },
      ok: true,
      families: [PAYMENTS_NONE],
      warnings: [],
    });
    expect(json.stderr).not.toContain("Database:");
    const text = await cli(base, ["providers", "check"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("No live verification provider is configured (LIVE_VERIFICATION_PROVIDER=none)");
    expect(text.stdout).toContain("No live payment provider is configured (LIVE_PAYMENT_PROVIDER=none)");
    expect(text.stdout).toMatch(/^ {2}payments +none +not-configured /m);
    expect(text.stdout).toContain("Nothing to check.");
    expect([fake.count(), pg.count()]).toEqual([calls, 0]);
    // Verification live, payments not: the verification families decide; payments stays not-configured.
    const verificationOnly = await cli(live({ LIVE_PAYMENT_PROVIDER: "none" }), ["providers", "check", "--json"]);
    expect(verificationOnly.code).toBe(0);
    expect(statuses(verificationOnly)).toEqual({ pan: "ok", epfo: "ok", aadhaar: "ok", bank: "ok", payments: "not-configured" });
    expect(pg.count()).toBe(0);
  });

  it("checks payments with the vendor's Get Order of an id no payment has: 404 ok, 401/403 misconfigured, a 5xx or a closed port unreachable", async () => {
    const payments = (r: CliResult) => (r.json.families as { family: string }[]).find((f) => f.family === "payments");
    const env = live({ LIVE_VERIFICATION_PROVIDER: "none" });
    pg.requests.length = 0;
    const ok = await cli(env, ["providers", "check", "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json).toMatchObject({ provider: "none", payments: { provider: "cashfree", baseUrl: pg.url }, ok: true });
    expect(payments(ok)).toMatchObject({ status: "ok", detail: "credentials accepted (HTTP 404 order_not_found)" });
    // A read only: the vendor was asked for one order Parakh never made, and none was made.
    expect(pg.requests.map((q) => `${q.operation} ${q.params.order_id}`)).toEqual(["PGFetchOrder parakh_providers_check"]);
    expect(pg.orders.size).toBe(0);
    const text = await cli(env, ["providers", "check"]);
    expect(text.stdout).toContain(`Live payments: cashfree at ${pg.url}`);
    expect(text.stdout).toMatch(/^ {2}payments +cashfree +ok +\d+ ms {2}credentials accepted \(HTTP 404 order_not_found\)$/m);
    expect(text.stdout).toContain("All families ok.");

    const wrong = await cli(live({ LIVE_VERIFICATION_PROVIDER: "none", CASHFREE_PG_CLIENT_SECRET: "cfsk_ma_pg_not_the_right_one" }), [
      "providers",
      "check",
      "--json",
    ]);
    expect(wrong.code).toBe(1);
    expect(payments(wrong)).toMatchObject({ status: "misconfigured", detail: expect.stringContaining("HTTP 401") });
    expect(wrong.stdout).not.toContain("cfsk_ma_pg_not_the_right_one");
    pg.fail("403", { times: 1 });
    const address = await cli(env, ["providers", "check"]);
    expect(address.code).toBe(1);
    expect(address.stdout).toMatch(/^ {2}payments +cashfree +misconfigured .*HTTP 403/m);
    expect(address.stdout).toContain("Not every family is ok");

    pg.fail("500", { times: 1 });
    const failing = await cli(env, ["providers", "check", "--json"]);
    expect([failing.code, payments(failing)]).toEqual([1, expect.objectContaining({ status: "unreachable" })]);
    const closed = await cli(live({ LIVE_VERIFICATION_PROVIDER: "none", CASHFREE_PG_BASE_URL: `http://127.0.0.1:${await closedPort()}/pg` }), [
      "providers",
      "check",
      "--json",
    ]);
    expect(payments(closed)).toMatchObject({ status: "unreachable", detail: expect.stringContaining("ECONNREFUSED") });
    for (const r of [ok, text, wrong, address, failing, closed]) expectNothingSecret(r);
  });

  it("warns when live payments are on and APP_URL is not a public https address, and writes nothing in the data folder", async () => {
    const dataDir = tempDataDir("parakh-cli-providers-fresh-");
    const fresh = { DATA_DIR: dataDir, DATABASE_URL: `file:${path.join(dataDir, "parakh.db")}` };
    const local = await cliProcess(live({ LIVE_VERIFICATION_PROVIDER: "none", APP_URL: "http://localhost:3000", ...fresh }), ["providers", "check"]);
    expect(local.code, local.stderr).toBe(0);
    expect(local.stdout).toContain(
      "Warning: APP_URL is http://localhost:3000, but live payments are on (LIVE_PAYMENT_PROVIDER=cashfree): the payment processor's webhooks (notify_url) and customers' returns go to that address",
    );
    // A check reads settings only: no secrets file, no database, nothing at all in the data folder.
    expect(fs.readdirSync(dataDir)).toEqual([]);

    for (const appUrl of ["https://127.0.0.1:8443", "http://pay.example.com"]) {
      const r = await cli(live({ LIVE_VERIFICATION_PROVIDER: "none", APP_URL: appUrl }), ["providers", "check", "--json"]);
      expect(r.json.warnings).toEqual([expect.stringContaining(`APP_URL is ${appUrl}`)]);
    }
    const public_ = await cli(live({ LIVE_VERIFICATION_PROVIDER: "none", APP_URL: "https://pay.example.com" }), ["providers", "check", "--json"]);
    expect(public_.json.warnings).toEqual([]);
    const noPayments = await cli(live({ LIVE_PAYMENT_PROVIDER: "none", APP_URL: "http://localhost:3000" }), ["providers", "check", "--json"]);
    expect(noPayments.json.warnings).toEqual([]);
  });

  it("reports every family ok against the vendor, exit 0, one JSON object", async () => {
    fake.requests.length = 0;
    const r = await cliProcess(live(), ["providers", "check", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(r.json).toMatchObject({ provider: "cashfree", baseUrl: fake.url, ok: true });
    expect(r.json.families.map((f: { family: string }) => f.family)).toEqual(FAMILIES);
    expect(statuses(r)).toEqual({ pan: "ok", epfo: "ok", aadhaar: "ok", bank: "ok", payments: "ok" });
    for (const f of r.json.families) expect(Object.keys(f).sort()).toEqual(["detail", "family", "ms", "status", "vendor"]);
    expectNothingSecret(r);
    // Status reads only: the check creates no verification at the vendor.
    expect(fake.requests.map((q) => `${q.method} ${q.path}`).sort()).toEqual(["GET /bank-account", "GET /pan/0", "GET /pan/0", "GET /pan/0"]);

    const text = await cli(live(), ["providers", "check"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Live verification: cashfree at ${fake.url}`);
    expect(text.stdout).toMatch(/^ {2}bank +cashfree +ok +\d+ ms {2}credentials accepted \(HTTP 404 reference_id_not_found\)$/m);
    expect(text.stdout).toContain("All families ok.");
  });

  it("reports misconfigured when the vendor answers 401 or 403, and exits 1", async () => {
    const wrong = await cli(live({ CASHFREE_VERIFICATION_CLIENT_SECRET: "cfsk_live_not_the_right_one" }), ["providers", "check", "--json"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout.trim().split("\n")).toHaveLength(1);
    expect(wrong.json.ok).toBe(false);
    expect(statuses(wrong)).toEqual({ pan: "misconfigured", epfo: "misconfigured", aadhaar: "misconfigured", bank: "misconfigured", payments: "ok" });
    expect(wrong.json.families[0].detail).toContain("HTTP 401, authentication_failed");
    expect(wrong.stdout).not.toContain("cfsk_live_not_the_right_one");
    expectNothingSecret(wrong);

    fake.fail("bank", "401");
    const one = await cli(live(), ["providers", "check"]);
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(/^ {2}bank +cashfree +misconfigured .*HTTP 401, authentication_failed/m);
    expect(one.stdout).toMatch(/^ {2}pan +cashfree +ok /m);
    expect(one.stdout).toContain("Not every family is ok");

    fake.fail("pan", "403");
    fake.clear("bank");
    const address = await cli(live(), ["providers", "check", "--json"]);
    expect(address.code).toBe(1);
    expect(statuses(address)).toEqual({ pan: "misconfigured", epfo: "misconfigured", aadhaar: "misconfigured", bank: "ok", payments: "ok" });
    expectNothingSecret(address);
  });

  it("reports unreachable for a closed port, a 5xx and a vendor past the deadline, and exits 1", async () => {
    const closed = await cli(live({ CASHFREE_VERIFICATION_BASE_URL: `http://127.0.0.1:${await closedPort()}` }), ["providers", "check", "--json"]);
    expect(closed.code).toBe(1);
    expect(statuses(closed)).toEqual({ pan: "unreachable", epfo: "unreachable", aadhaar: "unreachable", bank: "unreachable", payments: "ok" });
    expect(closed.json.families[0].detail).toContain("could not be reached (ECONNREFUSED)");
    expectNothingSecret(closed);

    fake.fail("bank", "500");
    const failing = await cli(live(), ["providers", "check", "--json"]);
    expect(failing.code).toBe(1);
    expect(statuses(failing)).toEqual({ pan: "ok", epfo: "ok", aadhaar: "ok", bank: "unreachable", payments: "ok" });

    fake.fail("bank", "hang");
    const started = Date.now();
    const slow = await cli(live({ UPSTREAM_TIMEOUT_MS: "400" }), ["providers", "check"]);
    expect(Date.now() - started).toBeLessThan(400 + 1_000);
    expect(slow.code).toBe(1);
    expect(slow.stdout).toMatch(/^ {2}bank +cashfree +unreachable .*did not answer within 400 ms/m);
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
