import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Config } from "@/server/config";
import { createLiveProviders } from "@/server/providers";
import { checkLiveVerification } from "@/server/providers/check";
import { secureIdClients } from "@/server/providers/cashfree/secure-id";
import { upstreamStats, type UpstreamLogger } from "@/server/providers/upstream/client";
import { FakeCashfreeVerification, startFakeCashfreeVerification } from "../helpers/fake-cashfree-verification";

const CREDENTIALS = { clientId: "CF_TEST_CLIENT", clientSecret: "cfsk_live_do_not_log_me" };
const quiet: UpstreamLogger = { warn: () => undefined, error: () => undefined };

let fake: FakeCashfreeVerification;

const settings = (overrides: Partial<Config["liveVerification"]> = {}, cashfree: Partial<Config["liveVerification"]["cashfree"]> = {}) => ({
  provider: "cashfree" as const,
  cashfree: { baseUrl: fake.url, ...CREDENTIALS, ...cashfree },
  timeoutMs: 2_000,
  maxConcurrency: 8,
  ...overrides,
});

const statuses = async (s = settings()) => Object.fromEntries((await checkLiveVerification(s)).families.map((f) => [f.family, f.status]));

beforeEach(async () => {
  fake = await startFakeCashfreeVerification(CREDENTIALS);
});

afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});

describe("the live verification check", () => {
  it("reads one status per family with an id no verification has, and calls the answer ok", async () => {
    const check = await checkLiveVerification(settings());
    expect(check).toMatchObject({ provider: "cashfree", baseUrl: fake.url, ok: true });
    expect(check.families.map((f) => [f.family, f.status])).toEqual([
      ["pan", "ok"],
      ["epfo", "ok"],
      ["aadhaar", "ok"],
      ["bank", "ok"],
    ]);
    expect(check.families[0]!.detail).toBe("credentials accepted (HTTP 404 referenceId_not_found)");
    expect(check.families[3]!.detail).toBe("credentials accepted (HTTP 404 reference_id_not_found)");
    // Status reads only: nothing the vendor bills or records.
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.params)}`).sort()).toEqual([
      'GET /bank-account {"reference_id":"0"}',
      'GET /pan/0 {"reference_id":"0"}',
      'GET /pan/0 {"reference_id":"0"}',
      'GET /pan/0 {"reference_id":"0"}',
    ]);
    expect(fake.requests.every((r) => r.headers["x-client-secret"] === CREDENTIALS.clientSecret)).toBe(true);
  });

  it("with no provider there is nothing to check, and nothing is called", async () => {
    expect(await checkLiveVerification({ ...settings(), provider: "none" })).toEqual({ provider: "none", baseUrl: null, ok: true, families: [] });
    expect(fake.count()).toBe(0);
  });

  it("401, 403 and the vendor's own account codes on a 400 are misconfigured", async () => {
    expect(await statuses(settings({}, { clientSecret: "wrong" }))).toEqual({
      pan: "misconfigured",
      epfo: "misconfigured",
      aadhaar: "misconfigured",
      bank: "misconfigured",
    });
    fake.fail("bank", "403");
    const check = await checkLiveVerification(settings());
    expect(check.ok).toBe(false);
    expect(check.families.find((f) => f.family === "bank")).toMatchObject({
      status: "misconfigured",
      detail: expect.stringContaining("HTTP 403, ip_validation_failed"),
    });
    fake.fail("bank", "test-credentials");
    expect(await statuses()).toEqual({ pan: "ok", epfo: "ok", aadhaar: "ok", bank: "misconfigured" });
  });

  it("a 5xx, a 429, an unreadable answer, the deadline and a closed port are unreachable", async () => {
    fake.fail("pan", "500");
    expect(await statuses()).toEqual({ pan: "unreachable", epfo: "unreachable", aadhaar: "unreachable", bank: "ok" });
    fake.fail("pan", "429", { retryAfter: "7" });
    fake.fail("bank", "malformed-json");
    expect(await statuses()).toEqual({ pan: "unreachable", epfo: "unreachable", aadhaar: "unreachable", bank: "unreachable" });

    fake.clear();
    fake.fail("bank", "hang");
    const started = performance.now();
    const hung = await checkLiveVerification(settings({ timeoutMs: 300 }));
    expect(performance.now() - started).toBeLessThan(1_300);
    expect(hung.families.find((f) => f.family === "bank")).toMatchObject({
      status: "unreachable",
      detail: "The upstream source did not answer within 300 ms.",
    });
    expect(hung.families.filter((f) => f.status === "ok")).toHaveLength(3);

    const port = await closedPort();
    expect(await statuses(settings({}, { baseUrl: `http://127.0.0.1:${port}` }))).toEqual({
      pan: "unreachable",
      epfo: "unreachable",
      aadhaar: "unreachable",
      bank: "unreachable",
    });
  });

  it("a status read is tried once and neither opens nor closes the breaker; its clients stay out of the operator view", async () => {
    const live = createLiveProviders(settings(), quiet, { retryDelayMs: 20 });
    const before = upstreamStats();
    fake.fail("pan", "500");
    for (let i = 0; i < 6; i++) await checkLiveVerification(settings());
    // Six failed checks, one try each per family, and the live breaker still closed and uncounted.
    expect(fake.count("/pan/0")).toBe(18);
    expect(upstreamStats()).toEqual(before);
    expect(upstreamStats().find((s) => s.family === "pan")).toMatchObject({ breaker: "closed", callsLast5Min: 0 });
    fake.clear();
    expect((await live.pan.lookup("ABCPK1234F")).status).toBe("VALID");

    // The same on one client: five failed probes leave its breaker closed.
    const [client] = Object.values(secureIdClients({ ...settings().cashfree, timeoutMs: 1_000, maxConcurrency: 4 }, quiet, { listed: false }));
    fake.fail("pan", "500");
    for (let i = 0; i < 5; i++) await expect(client!.probe({ method: "GET", path: "/pan/0" })).rejects.toMatchObject({ code: "SOURCE_UNAVAILABLE" });
    expect(client!.stats()).toMatchObject({ breaker: "closed", callsLast5Min: 0, failuresLast5Min: 0 });
  });

  it("the fake's status reads answer a verification it made, as its reference shows", async () => {
    const post = await fetch(`${fake.url}/pan`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-client-id": CREDENTIALS.clientId, "x-client-secret": CREDENTIALS.clientSecret },
      body: JSON.stringify({ pan: "ABCPK1234F" }),
    });
    const made = (await post.json()) as { reference_id: number };
    const read = await fetch(`${fake.url}/pan/${made.reference_id}`, {
      headers: { "x-client-id": CREDENTIALS.clientId, "x-client-secret": CREDENTIALS.clientSecret },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(made);
    const bank = await fetch(`${fake.url}/bank-account?reference_id=abc`, {
      headers: { "x-client-id": CREDENTIALS.clientId, "x-client-secret": CREDENTIALS.clientSecret },
    });
    expect([bank.status, ((await bank.json()) as { code: string }).code]).toEqual([400, "reference_id_value_invalid"]);
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
