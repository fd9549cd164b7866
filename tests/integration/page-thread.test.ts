import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, tempDataDir, type TestServer } from "../helpers/server";

// The production pages need the build (`npm test` builds before this stage).
const ROOT = path.resolve(__dirname, "../..");
const built = fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"));
const PROBE = path.join(ROOT, "tests/fixtures/page-thread-probe.mjs");

async function until<T>(what: string, attempt: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!built)("production pages on their own thread", () => {
  let server: TestServer;
  let probeFile: string;

  const signUp = (email: string) =>
    fetch(`${server.url}/api/trpc/account.signup`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-parakh-csrf": "1", origin: server.url },
      body: JSON.stringify({ name: "Thread Test Traders", email, password: "a long enough passphrase 42" }),
    });

  beforeAll(async () => {
    probeFile = path.join(tempDataDir("parakh-page-probe-"), "probe.json");
    server = await startServer({
      env: { SERVE_PAGES: "true", SEED_DEMO: "true", SIGNUPS_PER_ADDRESS_PER_HOUR: "1", NODE_OPTIONS: `--import ${PROBE}`, PAGE_PROBE_FILE: probeFile },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("serves a page with the server thread's headers and nonce, and a tRPC call with its body", async () => {
    const res = await fetch(`${server.url}/login`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeTruthy();
    expect(await res.text()).toContain(`nonce="${nonce}"`);

    const first = await signUp("thread-one@example.com");
    expect(first.status).toBe(200);
    expect(JSON.stringify(await first.json())).toContain("sk_test_");
  });

  it("restarts the page thread after it dies, answering 503 meanwhile, and its limits outlive it", async () => {
    process.kill(server.pid, "SIGUSR2");
    const down = await until("a 503 while the page thread restarts", async () => {
      const res = await fetch(`${server.url}/login`);
      return res.status === 503 ? res : (await res.arrayBuffer(), undefined);
    });
    expect(down.headers.get("retry-after")).toBe("5");
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");
    await until("the restarted page thread", async () => ((await fetch(`${server.url}/login`)).status === 200 ? true : undefined));

    // One sign-up an hour from this address: counted in the server thread's store, so the new thread knows it.
    const second = await signUp("thread-two@example.com");
    expect(second.status).toBe(429);
    expect(server.logs()).toContain("the page thread exited; restarting it");
  }, 90_000);

  it("leaves the API's thread without Next's promise hooks or its global patches", async () => {
    const { sandbox } = JSON.parse(fs.readFileSync(path.join(server.dataDir, "demo-credentials.json"), "utf8")) as { sandbox: { secretKey: string } };
    const res = await fetch(`${server.url}/v1/identity/pan/verify`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.secretKey}`, "content-type": "application/json" },
      body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }),
    });
    expect(res.status).toBe(200);
    expect(await server.stop()).toBe(0);
    expect(JSON.parse(fs.readFileSync(probeFile, "utf8"))).toEqual({ asyncLocalStorageRan: false, dateReplaced: false, pageThreads: 2 });
  });
});
