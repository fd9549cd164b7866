import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { tempDataDir } from "../helpers/server";
import { sleep } from "../helpers/wait";

const ROOT = path.resolve(__dirname, "../..");

/** CPU time (user + system) a process has used, in clock ticks. */
function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

describe("a server whose log reader went away", () => {
  const dataDir = tempDataDir();
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SERVE_PAGES: "false",
      SEED_DEMO: "false",
      LOG_LEVEL: "debug",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  afterAll(() => {
    child.kill("SIGKILL");
  });

  it("keeps serving and stays idle after its stdout and stderr pipes close", async () => {
    let output = "";
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 60_000);
      child.stderr!.on("data", () => {
        const m = output.match(/"msg":"listening"[^\n]*"port":(\d+)/);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
    });
    const base = `http://127.0.0.1:${port}`;
    child.stdout!.destroy();
    child.stderr!.destroy();
    // Requests that log (debug level logs every REST request) now write into closed pipes.
    for (let i = 0; i < 5; i++) expect((await request(base, "/v1/identity/pan/verify", { method: "POST", body: { pan: "ABCPK1234F" } })).status).toBe(401);
    // Idle: the quietest of four one-second windows uses well under a tenth of a core. A write-error
    // loop uses all of one in every window; a lone window can be busy with other work on a loaded machine.
    const windows: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = cpuTicks(child.pid!);
      await sleep(1000);
      windows.push(cpuTicks(child.pid!) - before);
    }
    expect(Math.min(...windows)).toBeLessThan(10);
    expect((await request(base, "/api/health")).status).toBe(200);
  });
});
