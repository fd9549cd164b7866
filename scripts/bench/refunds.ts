import type autocannon from "autocannon";
import { createPrismaClient } from "@/server/db/client";

/** Enough paid payments that no run reaches the cap of 100 refunds on one payment. */
const POOL = 1000;
/** Payments paid side by side while the pool is made. */
const SETUP_CONCURRENCY = 25;

/**
 * Refund creation under load: ₹0.01 partial refunds spread round-robin over a pool of paid payments
 * (paid through the sandbox simulation API), so each request reserves, inserts and enqueues a refund
 * while the job queue processes the earlier ones. Afterwards every payment's refunded total must equal
 * the sum of its refunds.
 */
export async function benchRefunds<R extends { total: number }>(
  base: string,
  databaseUrl: string,
  headers: Record<string, string>,
  load: (name: string, opts: autocannon.Options) => Promise<R>,
  label: string,
) {
  const json = { "content-type": "application/json", ...headers };
  const payOne = async (i: number) => {
    const created = await fetch(`${base}/api/checkout`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ orderId: `ORDER_bench_refund_${process.pid}_${i}`, amount: "100000" }),
    }).then((r) => r.json() as Promise<{ data: { paymentId: string } }>);
    const sim = await fetch(`${base}/api/sandbox/payments/${created.data.paymentId}/simulate`, {
      method: "POST",
      headers: json,
      body: '{"outcome":"SUCCESS"}',
    });
    if (!sim.ok) throw new Error(`could not pay the bench payment: ${sim.status} ${await sim.text()}`);
    return created.data.paymentId;
  };
  const paid: string[] = [];
  for (let i = 0; i < POOL; i += SETUP_CONCURRENCY) {
    paid.push(...(await Promise.all(Array.from({ length: Math.min(SETUP_CONCURRENCY, POOL - i) }, (_, j) => payOne(i + j)))));
  }
  let next = 0;
  const result = await load(`POST /api/payments/:id/refunds (${label})`, {
    url: `${base}/api/payments/${paid[0]}/refunds`,
    method: "POST",
    headers: json,
    requests: [{ setupRequest: (req) => ({ ...req, path: `/api/payments/${paid[next++ % POOL]}/refunds`, body: '{"amount":"0.01"}' }) }],
  });
  const db = createPrismaClient(databaseUrl);
  try {
    const payments = await db.payment.findMany({ where: { id: { in: paid } }, select: { refundedPaise: true, _count: { select: { refunds: true } } } });
    const refunds = payments.reduce((n, p) => n + p._count.refunds, 0);
    const consistent = payments.every((p) => p.refundedPaise === p._count.refunds);
    return { ...result, refunds, consistent };
  } finally {
    await db.$disconnect();
  }
}
