import { fork } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * The vendor's PAN verification (`POST /pan`) on a loopback port, answering at once or after a set
 * latency, for the live PAN verify runs of `npm run bench`. The answer is the vendor's own example from its published
 * reference (the fixture the test fake validates against), with the PAN and name asked for.
 * Unlike the test fake (tests/helpers/fake-cashfree-verification.ts) it checks no schema per
 * request, and it runs in a process of its own (startBenchVendorProcess): at 2,000 calls a second its
 * CPU would otherwise come out of the load generator's one thread, and each one's CPU is reported apart.
 */
export interface BenchVendor {
  url: string;
  clientId: string;
  clientSecret: string;
  /** `/pan` calls answered 200. */
  panCalls: () => Promise<number>;
  /** TCP connections Parakh has opened to the vendor so far. */
  connections: () => Promise<number>;
  /** The vendor process's CPU time so far (user + system), in µs. */
  cpuUs: () => Promise<number>;
  /** Answers from now on wait this long first (a slow vendor); 0 answers at once. */
  setLatency: (ms: number) => Promise<void>;
  close: () => Promise<void>;
}

const FIXTURE = path.join(__dirname, "../../tests/fixtures/cashfree-verification/pan-verify.json");

/** The reference's "Valid PAN Individual" example answer. */
function exampleAnswer(): Record<string, unknown> {
  const doc = JSON.parse(fs.readFileSync(FIXTURE, "utf8"));
  return doc.components.responses.GetVerifyPanResponse.content["application/json"].examples["Valid PAN Individual"].value;
}

/** The vendor in this process (what ./vendor-process.ts runs). */
export async function startBenchVendor(): Promise<BenchVendor> {
  const clientId = "CF_BENCH_CLIENT";
  const clientSecret = "cfsk_ma_bench_secret";
  const example = exampleAnswer();
  let reference = 1;
  let panCalls = 0;
  let connections = 0;
  let latencyMs = 0;
  // The answer's text per request body, around its reference id: the bench sends one body, so the
  // vendor's CPU goes to HTTP and not to building the same JSON again.
  const answers = new Map<string, [string, string]>();
  const answerFor = (raw: string): [string, string] => {
    let parts = answers.get(raw);
    if (!parts) {
      const body = JSON.parse(raw) as { pan: string; name?: string };
      const name = (body.name ?? "Arjun Kapoor").toUpperCase();
      const text = JSON.stringify({
        ...example,
        pan: body.pan,
        reference_id: -1,
        name_provided: body.name ?? null,
        registered_name: name,
        name_pan_card: name,
      });
      const at = text.indexOf('"reference_id":-1') + '"reference_id":'.length;
      parts = [text.slice(0, at), text.slice(at + 2)];
      if (answers.size < 1000) answers.set(raw, parts);
    }
    return parts;
  };
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let status = 200;
      let text: string;
      if (req.headers["x-client-id"] !== clientId || req.headers["x-client-secret"] !== clientSecret) {
        status = 401;
        text = JSON.stringify({ type: "authentication_error", code: "authentication_failed", message: "Invalid clientId and clientSecret combination" });
      } else if (req.method !== "POST" || req.url !== "/pan") {
        status = 404;
        text = JSON.stringify({ type: "invalid_request_error", code: "not_found", message: "not found" });
      } else {
        const [before, after] = answerFor(Buffer.concat(chunks).toString("utf8"));
        text = `${before}${reference++}${after}`;
        panCalls++;
      }
      const send = () => {
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      };
      if (latencyMs > 0) setTimeout(send, latencyMs);
      else send();
    });
  });
  server.on("connection", () => connections++);
  // Thousands of calls in flight at a slow vendor: no per-server cap on sockets here.
  server.maxConnections = Infinity;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", 4096, resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientId,
    clientSecret,
    panCalls: async () => panCalls,
    connections: async () => connections,
    cpuUs: async () => {
      const cpu = process.cpuUsage();
      return cpu.user + cpu.system;
    },
    setLatency: async (ms) => {
      latencyMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The vendor in a process of its own (./vendor-process.ts), asked over its IPC channel. */
export async function startBenchVendorProcess(): Promise<BenchVendor> {
  const child = fork(path.join(__dirname, "vendor-process.ts"), { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const first = await new Promise<{ url: string; clientId: string; clientSecret: string }>((resolve, reject) => {
    child.once("message", resolve as (m: unknown) => void);
    child.once("exit", (code) => reject(new Error(`the bench vendor exited ${code}`)));
  });
  let asked = 0;
  const ask = <T>(question: string, arg?: number) =>
    new Promise<T>((resolve) => {
      const id = ++asked;
      const on = (m: { id?: number; answer?: T }) => {
        if (m.id !== id) return;
        child.off("message", on);
        resolve(m.answer as T);
      };
      child.on("message", on);
      child.send({ id, question, arg });
    });
  return {
    ...first,
    panCalls: () => ask<number>("panCalls"),
    connections: () => ask<number>("connections"),
    cpuUs: () => ask<number>("cpuUs"),
    setLatency: (ms) => ask<void>("setLatency", ms),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  };
}
