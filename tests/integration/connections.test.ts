import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";

/** Sockets that stay open, trickle, or pile up from one address are closed by the server. */
describe("connection limits", () => {
  let server: TestServer;
  let m: MerchantFixture;

  beforeAll(async () => {
    server = await startServer({
      env: {
        HTTP_HEADERS_TIMEOUT_MS: "3000",
        HTTP_REQUEST_TIMEOUT_MS: "3000",
        HTTP_IDLE_TIMEOUT_MS: "3000",
        HTTP_KEEP_ALIVE_TIMEOUT_MS: "1000",
        HTTP_MAX_CONNECTIONS: "300",
        HTTP_MAX_CONNECTIONS_PER_IP: "256",
      },
    });
    m = await createMerchantViaCli(server.env);
  });
  afterAll(async () => {
    await server?.stop();
  });

  interface Tracked {
    socket: net.Socket;
    closedAt: Promise<number>;
  }

  function open(localAddress = "127.0.0.1"): Promise<Tracked> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect({ port: server.port, host: "127.0.0.1", localAddress });
      const closedAt = new Promise<number>((r) => socket.once("close", () => r(Date.now() - started)));
      socket.on("error", () => undefined);
      socket.once("connect", () => resolve({ socket, closedAt }));
      socket.once("error", reject);
    });
  }

  it("closes 200 sockets that never send a byte", async () => {
    const sockets = await Promise.all(Array.from({ length: 200 }, () => open("127.0.0.2")));
    const closed = await Promise.all(sockets.map((s) => Promise.race([s.closedAt, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))])));
    expect(closed.filter((ms) => ms < 0)).toHaveLength(0);
    expect(Math.max(...closed)).toBeLessThan(10_000);
  });

  it("cuts off a body trickled a byte at a time", async () => {
    const { socket, closedAt } = await open("127.0.0.3");
    socket.write(
      `POST /v1/identity/pan/verify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.sandbox.secretKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
    );
    let received = "";
    socket.on("data", (c) => (received += c.toString()));
    const timer = setInterval(() => socket.writable && socket.write("a"), 200);
    const ms = await Promise.race([closedAt, new Promise<number>((r) => setTimeout(() => r(-1), 12_000))]);
    clearInterval(timer);
    expect(ms).toBeGreaterThan(2500);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
  });

  it("cuts off headers trickled a byte at a time", async () => {
    const { socket, closedAt } = await open("127.0.0.4");
    const head = "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(200);
    let i = 0;
    const timer = setInterval(() => socket.writable && i < head.length && socket.write(head[i++]!), 100);
    const ms = await Promise.race([closedAt, new Promise<number>((r) => setTimeout(() => r(-1), 12_000))]);
    clearInterval(timer);
    expect(ms).toBeGreaterThan(0);
    expect(i).toBeLessThan(head.length);
  });

  it("holds at most 256 sockets per address and 300 in all, and still serves other addresses", async () => {
    const fromA = await Promise.all(Array.from({ length: 270 }, () => open("127.0.0.5")));
    const fromB = await Promise.all(Array.from({ length: 60 }, () => open("127.0.0.6")));
    // Sockets over a cap are closed at once; the others stay until their idle timeout (3 s).
    const early = async (list: Tracked[]) =>
      (await Promise.all(list.map((s) => Promise.race([s.closedAt.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1000))])))).filter(
        Boolean,
      ).length;
    const [closedA, closedB] = await Promise.all([early(fromA), early(fromB)]);
    expect(closedA).toBe(14);
    expect(closedB).toBe(16);
    for (const s of [...fromA, ...fromB]) s.socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await request(server.url, "/api/health", { localAddress: "127.0.0.7" })).status).toBe(200);
  });
});
