import crypto from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";
import { waitFor } from "../helpers/wait";

/** After the first attempt, in minutes (docs/api.md, Webhooks): then the delivery is marked failed. */
const RETRY_SCHEDULE_MINUTES = [1, 5, 10, 30, 60, 120, 240, 360, 360];
const DELIVERY_TIMEOUT_MS = 5_000;

const randomId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString("hex")}`;

/** A receiver on loopback: `/fail` answers 500 at once, `/hang` never answers. */
function startReceiver() {
  const hits = { fail: 0, hang: 0 };
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    if (req.url === "/hang") {
      hits.hang++;
      return; // no answer: the sender's timeout has to end it
    }
    hits.fail++;
    res.writeHead(500, { "Content-Type": "text/plain" }).end("down");
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return new Promise<{ url: string; hits: typeof hits; close: () => void }>((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        hits,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      });
    }),
  );
}

/**
 * Webhook retries and the delivery timeout, through the server's own job runner. Each scheduled
 * retry is brought forward in the job table once it is scheduled, so ten attempts take seconds.
 */
describe("webhook retry schedule and delivery timeout", () => {
  let server: TestServer;
  let db: Db;
  let m: MerchantFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  /** A sandbox event with one pending delivery to `url`, queued as the app queues it. */
  async function queueDelivery(url: string) {
    const eventId = randomId("evt");
    const deliveryId = randomId("del");
    await db.webhookEvent.create({
      data: { id: eventId, merchantId: m.merchantId, mode: "sandbox", type: "payment.failed", body: JSON.stringify({ id: eventId, type: "payment.failed" }) },
    });
    await db.webhookDelivery.create({ data: { id: deliveryId, eventId, url, status: "PENDING", nextAttemptAt: new Date() } });
    const jobId = randomId("job");
    await db.job.create({
      data: { id: jobId, type: "webhook.deliver", payload: JSON.stringify({ deliveryId }), runAt: new Date(), uniqueKey: `deliver:${deliveryId}` },
    });
    return { deliveryId, jobId };
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startServer({ env: { WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true" } });
    db = createPrismaClient(server.databaseUrl);
    m = await createMerchantViaCli(server.env);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.$disconnect();
    receiver?.close();
  });

  // Concurrent: the timeout test spends its five seconds while the schedule test runs.
  it.concurrent(
    "retries after 1m, 5m, 10m, 30m, 1h, 2h, 4h, 6h and 6h, then marks the delivery failed",
    async () => {
      const { deliveryId, jobId } = await queueDelivery(`${receiver.url}/fail`);
      const delaysMinutes: number[] = [];
      for (let n = 1; n <= RETRY_SCHEDULE_MINUTES.length + 1; n++) {
        const d = await waitFor(`attempt ${n}`, () =>
          db.webhookDelivery.findFirst({ where: { id: deliveryId, attemptCount: n }, include: { attempts: { orderBy: { attemptNo: "asc" } } } }),
        );
        expect(d.attempts).toHaveLength(n);
        expect(d.attempts[n - 1]).toMatchObject({ attemptNo: n, statusCode: 500, responseExcerpt: "down" });
        if (d.status !== "PENDING") break;
        const delayMs = d.nextAttemptAt!.getTime() - d.attempts[n - 1]!.createdAt.getTime();
        delaysMinutes.push(Math.round(delayMs / 60_000));
        // The retry is a durable job due at nextAttemptAt; once it is scheduled, bring it forward.
        const job = await waitFor(`the job rescheduled after attempt ${n}`, () =>
          db.job.findFirst({ where: { id: jobId, status: "QUEUED", runAt: { gt: new Date(Date.now() + 30_000) } } }),
        );
        expect(Math.abs(job.runAt.getTime() - d.nextAttemptAt!.getTime())).toBeLessThan(1_000);
        await db.job.update({ where: { id: jobId }, data: { runAt: new Date() } });
      }
      expect(delaysMinutes).toEqual(RETRY_SCHEDULE_MINUTES);

      const final = await db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId }, include: { attempts: true } });
      expect(final).toMatchObject({ status: "FAILED", attemptCount: 10, nextAttemptAt: null, deliveredAt: null, lastStatusCode: 500 });
      expect(final.attempts).toHaveLength(10);
      const job = await waitFor("the delivery job to finish", () => db.job.findFirst({ where: { id: jobId, status: { notIn: ["QUEUED", "RUNNING"] } } }));
      expect(job.status).toBe("DONE");
    },
    60_000,
  );

  it.concurrent(
    "gives up on an endpoint that does not answer within 5 s, records it, and schedules the retry",
    async () => {
      const started = Date.now();
      const { deliveryId } = await queueDelivery(`${receiver.url}/hang`);
      // Well before a timeout much longer than 5 s could end the attempt.
      const d = await waitFor(
        "the timed-out attempt",
        () => db.webhookDelivery.findFirst({ where: { id: deliveryId, attemptCount: 1 }, include: { attempts: true } }),
        DELIVERY_TIMEOUT_MS + 10_000,
        100,
      );
      expect(receiver.hits.hang).toBeGreaterThanOrEqual(1);
      const [attempt] = d.attempts;
      expect(attempt).toMatchObject({ attemptNo: 1, statusCode: null });
      expect(attempt!.error).toMatch(/time/i);
      // Not given up early either: the attempt waited the full five seconds.
      expect(attempt!.latencyMs).toBeGreaterThanOrEqual(DELIVERY_TIMEOUT_MS - 100);
      expect(attempt!.createdAt.getTime() - started).toBeGreaterThanOrEqual(DELIVERY_TIMEOUT_MS - 100);
      expect(d.status).toBe("PENDING");
      expect(Math.round((d.nextAttemptAt!.getTime() - attempt!.createdAt.getTime()) / 60_000)).toBe(1);
    },
    30_000,
  );
});
