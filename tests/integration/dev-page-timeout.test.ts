import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `npm run dev` compiles a page on its first request, often for longer than the idle timeout, with
// nothing written meanwhile. The server's real request listener and timeouts run here with a page
// handler that takes longer than the idle timeout to answer, as Next's compiler would.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dev-timeout-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { getConfig } = await import("@/server/config");
const { configureServer } = await import("@/server/http/start");
const { createRequestListener, InFlightRequests } = await import("@/server/http/request-listener");

const IDLE_MS = 300;
const KEEP_ALIVE_MS = 300;
const COMPILE_MS = 1200;

/** A page handler as slow as a first compile: silent for COMPILE_MS, then the page. */
async function slowPage(_req: http.IncomingMessage, res: http.ServerResponse) {
  await new Promise((r) => setTimeout(r, COMPILE_MS));
  res.setHeader("Content-Type", "text/html");
  res.end("<!doctype html><h1>Compiled</h1>");
}

async function startWith(dev: boolean): Promise<{ port: number; close: () => void }> {
  const services = getServices();
  const listener = await createRequestListener({ services, dev, pages: slowPage, inFlight: new InFlightRequests() });
  const server = http.createServer(listener);
  const base = getConfig();
  configureServer(server, { ...base, http: { ...base.http, idleTimeoutMs: IDLE_MS, keepAliveTimeoutMs: KEEP_ALIVE_MS } }, undefined);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** One request over a raw socket: what came back, and when the server closed the socket. */
function get(port: number, pathname: string): Promise<{ received: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ port, host: "127.0.0.1" });
    let received = "";
    socket.on("data", (c) => (received += c.toString()));
    socket.on("error", () => undefined);
    socket.once("close", () => resolve({ received, closedAfterMs: Date.now() - started }));
    socket.once("connect", () => socket.write(`GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
    // Long enough for any answer; the socket is ended here only if the server never closes it.
    setTimeout(() => socket.destroy(), COMPILE_MS + 5000);
  });
}

beforeAll(async () => {
  await migrateTestDatabase(process.env.DATABASE_URL!);
});

afterAll(async () => {
  await getServices().db.$disconnect();
});

describe("the idle timeout and a page that takes long to compile", () => {
  it("in development, waits for the page, then closes the idle keep-alive socket as usual", async () => {
    const server = await startWith(true);
    try {
      const { received, closedAfterMs } = await get(server.port, "/dashboard");
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      expect(received).toContain("<h1>Compiled</h1>");
      // Not kept open for good: the keep-alive timeout still ends the socket after the answer.
      expect(closedAfterMs).toBeGreaterThanOrEqual(COMPILE_MS);
      expect(closedAfterMs).toBeLessThan(COMPILE_MS + 3000);
    } finally {
      server.close();
    }
  });

  it("in production, a page silent for longer than the idle timeout is cut", async () => {
    const server = await startWith(false);
    try {
      const { received, closedAfterMs } = await get(server.port, "/dashboard");
      expect(received).toBe("");
      expect(closedAfterMs).toBeGreaterThanOrEqual(IDLE_MS - 50);
      expect(closedAfterMs).toBeLessThan(COMPILE_MS);
    } finally {
      server.close();
    }
  });

  it("in development, a socket that never sends a request is still closed by the idle timeout", async () => {
    const server = await startWith(true);
    try {
      const closedAfterMs = await new Promise<number>((resolve) => {
        const started = Date.now();
        const socket = net.connect({ port: server.port, host: "127.0.0.1" });
        socket.on("error", () => undefined);
        socket.once("close", () => resolve(Date.now() - started));
        setTimeout(() => socket.destroy(), 5000);
      });
      expect(closedAfterMs).toBeLessThan(3000);
    } finally {
      server.close();
    }
  });
});
