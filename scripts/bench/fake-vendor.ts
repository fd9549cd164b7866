import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * The vendor's PAN verification (`POST /pan`) on a loopback port, answering at once or after a set
 * latency, for the live PAN verify runs of `npm run bench`. The answer is the vendor's own example from its published
 * reference (the fixture the test fake validates against), with the PAN and name asked for.
 * Unlike the test fake (tests/helpers/fake-cashfree-verification.ts) it checks no schema per
 * request: it runs in the bench process, whose CPU must go to loading the server.
 */
export interface BenchVendor {
  url: string;
  clientId: string;
  clientSecret: string;
  /** `/pan` calls answered 200. */
  panCalls: () => number;
  /** TCP connections Parakh has opened to the vendor so far. */
  connections: () => number;
  /** Answers from now on wait this long first (a slow vendor); 0 answers at once. */
  setLatency: (ms: number) => void;
  close: () => Promise<void>;
}

const FIXTURE = path.join(__dirname, "../../tests/fixtures/cashfree-verification/pan-verify.json");

/** The reference's "Valid PAN Individual" example answer. */
function exampleAnswer(): Record<string, unknown> {
  const doc = JSON.parse(fs.readFileSync(FIXTURE, "utf8"));
  return doc.components.responses.GetVerifyPanResponse.content["application/json"].examples["Valid PAN Individual"].value;
}

export async function startBenchVendor(): Promise<BenchVendor> {
  const clientId = "CF_BENCH_CLIENT";
  const clientSecret = "cfsk_ma_bench_secret";
  const example = exampleAnswer();
  let reference = 1;
  let panCalls = 0;
  let connections = 0;
  let latencyMs = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let status = 200;
      let answer: unknown;
      if (req.headers["x-client-id"] !== clientId || req.headers["x-client-secret"] !== clientSecret) {
        status = 401;
        answer = { type: "authentication_error", code: "authentication_failed", message: "Invalid clientId and clientSecret combination" };
      } else if (req.method !== "POST" || req.url !== "/pan") {
        status = 404;
        answer = { type: "invalid_request_error", code: "not_found", message: "not found" };
      } else {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { pan: string; name?: string };
        const name = (body.name ?? "Arjun Kapoor").toUpperCase();
        answer = { ...example, pan: body.pan, reference_id: reference++, name_provided: body.name ?? null, registered_name: name, name_pan_card: name };
        panCalls++;
      }
      const text = JSON.stringify(answer);
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
    panCalls: () => panCalls,
    connections: () => connections,
    setLatency: (ms) => {
      latencyMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
