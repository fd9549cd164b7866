import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_RESPONSE_BYTES, postWebhook } from "@/server/providers/webhooks/http-post";
import { startMisbehavingReceiver } from "../helpers/webhook-receiver";
import { waitFor } from "../helpers/wait";

/** A short deadline keeps the file quick; the server uses 5 s (DELIVERY_TIMEOUT_MS). */
const DEADLINE_MS = 1_000;
const LOOPBACK = { address: "127.0.0.1", family: 4 as const };

describe("postWebhook: one deadline for the whole answer, at most 64 KiB read", () => {
  let receiver: Awaited<ReturnType<typeof startMisbehavingReceiver>>;
  const post = (path: string) =>
    postWebhook(new URL(`${receiver.url}${path}`), LOOPBACK, { "Content-Type": "application/json" }, "{}", { timeoutMs: DEADLINE_MS });
  /** The receiver's record of the request to `path`, once the sender has closed the connection. */
  const closed = (path: string) => waitFor(`the receiver to see ${path} closed`, () => receiver.hits.find((h) => h.path === path && h.closedAt !== null));

  beforeAll(async () => {
    receiver = await startMisbehavingReceiver();
  });
  afterAll(() => receiver?.close());

  it("answers a normal receiver at once with its status and body", async () => {
    const r = await post("/ok");
    expect(r).toMatchObject({ statusCode: 200, excerpt: "ok", error: null, bytesRead: 2 });
    expect(r.latencyMs).toBeLessThan(DEADLINE_MS);
  });

  it("reaches a receiver named by a host name at the address checked for it, without asking DNS", async () => {
    // No DNS knows this name: only the checked address can be where the request went.
    const named = new URL(receiver.url);
    named.hostname = "merchant-shop.example";
    const r = await postWebhook(new URL(`${named.origin}/ok`), LOOPBACK, { "Content-Type": "application/json" }, "{}", { timeoutMs: DEADLINE_MS });
    expect(r).toMatchObject({ statusCode: 200, excerpt: "ok", error: null });
  });

  it("gives up on a 200 whose body trickles in a byte at a time, at the deadline, and closes the socket", async () => {
    const r = await post("/trickle-1");
    expect(r.statusCode).toBe(200);
    expect(r.error).toBe(`timed out after ${DEADLINE_MS} ms`);
    // A byte every 200 ms keeps a socket idle timeout from ever firing; the deadline does not care.
    expect(r.latencyMs).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
    expect(r.bytesRead).toBeGreaterThan(0);
    expect(r.excerpt).toMatch(/^a+$/);
    const hit = await closed("/trickle-1");
    expect(hit.bytesWritten).toBeLessThan(100);
  });

  it("gives up on a 200 whose short body never ends", async () => {
    const r = await post("/unfinished-1");
    expect(r).toMatchObject({ statusCode: 200, excerpt: "ok", error: `timed out after ${DEADLINE_MS} ms` });
  });

  it("reads the first 64 KiB of a body streamed fast, then closes the socket without reading more: not an answer", async () => {
    const r = await post("/stream-1");
    expect(r).toMatchObject({ statusCode: 200, error: "the answer's body is over 64 KiB (not read further)", bytesRead: MAX_RESPONSE_BYTES });
    expect(r.excerpt).toHaveLength(500);
    expect(r.latencyMs).toBeLessThan(DEADLINE_MS);
    const hit = await closed("/stream-1");
    // The streamer stopped long before its 30 s, having written the 64 KiB read plus what the two
    // kernels buffer on loopback (tens of MB at most), not the gigabytes of a read to the end.
    expect(hit.closedAt! - hit.openedAt).toBeLessThan(15_000);
    expect(hit.bytesWritten).toBeLessThan(40 * 1024 * 1024);
  });

  it("refuses a 2xx with a body over 64 KiB even when it comes whole, reading 64 KiB of it", async () => {
    const r = await post("/big-1");
    expect(r).toMatchObject({ statusCode: 200, error: "the answer's body is over 64 KiB (not read further)", bytesRead: MAX_RESPONSE_BYTES });
  });

  it("takes a body of exactly 64 KiB that ends", async () => {
    const r = await post("/exact-1");
    expect(r).toMatchObject({ statusCode: 200, error: null, bytesRead: MAX_RESPONSE_BYTES });
  });

  it("reports a refused connection as an error without a status", async () => {
    const r = await postWebhook(new URL("http://127.0.0.1:9/hooks"), LOOPBACK, {}, "{}", { timeoutMs: DEADLINE_MS });
    expect(r.statusCode).toBeNull();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });
});
