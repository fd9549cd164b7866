import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { parseScrape, valueOf } from "../helpers/prometheus";

// Two cluster workers behind one port: a scrape answered by either worker holds both workers' requests.
const ROOT = path.resolve(__dirname, "../..");

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("metrics across node:cluster workers", () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, ["--import", "tsx", "tests/helpers/cluster-metrics-fixture.ts"], {
      cwd: ROOT,
      env: { ...process.env, FIXTURE_PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`cluster did not start:\n${out}`)), 30_000);
      child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (/ready \d+/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    url = `http://127.0.0.1:${port}`;
  }, 40_000);
  afterAll(() => {
    child?.kill("SIGTERM");
  });

  it("sums every worker's requests, whichever worker is scraped", async () => {
    const pids = new Set<string>();
    for (let i = 0; i < 10; i++) pids.add((await request(url, "/fixture")).text);
    // The primary hands connections to its workers in turn: both answered.
    expect(pids.size).toBe(2);
    for (let i = 0; i < 4; i++) {
      const f = parseScrape((await request(url, "/metrics")).text);
      expect(valueOf(f, "parakh_http_requests_total", { method: "GET", route: "/fixture", status_class: "2xx" })).toBe(10);
    }
  });
});
