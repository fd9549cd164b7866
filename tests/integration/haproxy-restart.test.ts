import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchConfig, HAPROXY_BIN } from "../../scripts/bench/haproxy";
import { rollingRestart, serverStatus } from "../../scripts/haproxy-restart";
import { waitFor } from "../helpers/wait";

// The rolling restart (npm run -s restart:haproxy) against a real HAProxy running the shipped example
// (deploy/haproxy/haproxy.cfg, ports changed), with two small HTTP servers standing in for Parakh instances. `npm run bench`
// runs the same restart with two real instances under load.
const EXAMPLE = path.resolve(__dirname, "../../deploy/haproxy/haproxy.cfg");
const installed = fs.existsSync(HAPROXY_BIN);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * An instance stand-in: /api/ready answers 200 with the id of this start (as Parakh does), anything
 * else its name and the X-Forwarded-For it got.
 */
class Backend {
  server: http.Server | undefined;
  instance = "";
  constructor(
    readonly name: string,
    readonly port: number,
  ) {}
  start(): Promise<void> {
    this.instance = crypto.randomUUID();
    this.server = http.createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify(
          req.url === "/api/ready" ? { status: "ready", instance: this.instance } : { name: this.name, forwardedFor: req.headers["x-forwarded-for"] ?? null },
        ),
      );
    });
    return new Promise((r) => this.server!.listen(this.port, "127.0.0.1", () => r()));
  }
  /** Stops as Parakh's SIGTERM does: no new connections, idle ones closed, requests in flight finish. */
  stop(): Promise<void> {
    const server = this.server!;
    return new Promise((r) => {
      server.close(() => r());
      server.closeIdleConnections();
    });
  }
}

describe.skipIf(!installed)(`rolling restart behind HAProxy (${HAPROXY_BIN})`, () => {
  let dir = "";
  let socket = "";
  let haproxy: ChildProcess;
  let front = 0;
  const backends: Record<string, Backend> = {};

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-haproxy-test-"));
    socket = path.join(dir, "admin.sock");
    const ports = { front: await freePort(), app1: await freePort(), app2: await freePort() };
    front = ports.front;
    for (const name of ["app1", "app2"] as const) {
      backends[name] = new Backend(name, ports[name]);
      await backends[name].start();
    }
    const cfg = path.join(dir, "haproxy.cfg");
    fs.writeFileSync(cfg, benchConfig(fs.readFileSync(EXAMPLE, "utf8"), ports, socket));
    haproxy = spawn(HAPROXY_BIN, ["-f", cfg, "-db"], { stdio: "ignore" });
    for (const name of ["app1", "app2"]) {
      await waitFor(`HAProxy sees ${name} UP`, async () => (await serverStatus(socket, "parakh", name).catch(() => null))?.status === "UP", 15_000);
    }
  });

  afterAll(async () => {
    haproxy?.kill("SIGTERM");
    for (const b of Object.values(backends)) if (b.server?.listening) await b.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the example as shipped is a valid HAProxy configuration", () => {
    expect(execFileSync(HAPROXY_BIN, ["-c", "-f", EXAMPLE], { encoding: "utf8" })).toContain("Configuration file is valid");
  });

  it("passes the caller's address on in X-Forwarded-For", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${front}/whoami`, { localAddress: "127.0.0.2", agent: false }, (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c.toString()));
          res.on("end", () => resolve(body));
        })
        .on("error", reject);
    });
    expect(JSON.parse(answer).forwardedFor).toBe("127.0.0.2");
  });

  it("npm run -s restart:haproxy restarts app1 then app2, each drained of sessions while the other serves, and no request fails", async () => {
    // The command's --restart line calls this server, which restarts the stand-in it names.
    const seen: { server: string; status: string; sessions: number; other: string }[] = [];
    const control = http.createServer((req, res) => {
      const name = /^\/restart\/(app[12])$/.exec(req.url ?? "")?.[1];
      if (!name) return void res.writeHead(404).end();
      void (async () => {
        const other = name === "app1" ? "app2" : "app1";
        const own = await serverStatus(socket, "parakh", name);
        seen.push({ server: name, ...own, other: (await serverStatus(socket, "parakh", other)).status });
        await backends[name]!.stop();
        // Down for a while, as a real restart is.
        setTimeout(() => void backends[name]!.start(), 1000);
        res.end();
      })();
    });
    await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
    const restartLine = `curl -sf http://127.0.0.1:${(control.address() as net.AddressInfo).port}/restart/{server}`;
    let stop = false;
    const outcomes = { ok: 0, failed: 0 };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const client = async () => {
      while (!stop) {
        const status = await fetchStatus(`http://127.0.0.1:${front}/load`, agent);
        if (status === 200) outcomes.ok++;
        else outcomes.failed++;
      }
    };
    const clients = Array.from({ length: 4 }, client);
    let run: { code: number | null; stdout: string; stderr: string };
    try {
      run = await runCommand(["--import", "tsx", "scripts/haproxy-restart.ts", "--socket", socket, "--restart", restartLine, "--timeout-seconds", "30"]);
    } finally {
      stop = true;
      await Promise.all(clients);
      agent.destroy();
      control.close();
    }
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^restarted app1 \(\d+ ms\), app2 \(\d+ ms\)\n$/);
    expect(seen).toEqual([
      { server: "app1", status: "DRAIN", sessions: 0, other: "UP" },
      { server: "app2", status: "DRAIN", sessions: 0, other: "UP" },
    ]);
    expect(outcomes.failed).toBe(0);
    expect(outcomes.ok).toBeGreaterThan(100);
    for (const name of ["app1", "app2"]) expect((await serverStatus(socket, "parakh", name)).status).toBe("UP");
  });

  it("fails, and puts the server back as it was, when the restart leaves the old process answering", async () => {
    const restarted: string[] = [];
    await expect(
      rollingRestart({ socket, backend: "parakh", restart: async (s) => void restarted.push(s.name), timeoutMs: 1500, log: () => {} }),
    ).rejects.toThrow(/parakh\/app1: the old process \(instance [0-9a-f-]{36}\) still answers .* the restart did not replace it/);
    expect(restarted).toEqual(["app1"]);
    await waitFor("HAProxy sees app1 UP again", async () => (await serverStatus(socket, "parakh", "app1")).status === "UP", 15_000);
  });

  it("takes no server out of rotation while another is down", async () => {
    await backends.app2!.stop();
    await waitFor("HAProxy sees app2 DOWN", async () => (await serverStatus(socket, "parakh", "app2")).status === "DOWN", 15_000);
    const restarted: string[] = [];
    await expect(
      rollingRestart({ socket, backend: "parakh", restart: async (s) => void restarted.push(s.name), timeoutMs: 1500, log: () => {} }),
    ).rejects.toThrow("parakh/app2 is UP");
    expect(restarted).toEqual([]);
    expect((await serverStatus(socket, "parakh", "app1")).status).toBe("UP");
    await backends.app2!.start();
    await waitFor("HAProxy sees app2 UP again", async () => (await serverStatus(socket, "parakh", "app2")).status === "UP", 15_000);
  });
});

function runCommand(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: path.resolve(__dirname, "../.."), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

function fetchStatus(url: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      })
      .on("error", () => resolve(0));
  });
}
