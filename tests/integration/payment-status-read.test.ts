import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AtomicWriter } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import type { DbProvider } from "@/server/db/provider";
import { findMerchantPayment, findMerchantPaymentStatus, statusView } from "@/server/services/payments/payments";
import { DB_TARGETS } from "../helpers/db-targets";
import { openTestWriter } from "../helpers/test-db";

// The status call reads a payment with two prepared statements; the dashboard and webhooks read it
// through Prisma. Rows written by Prisma must give the same answer both ways.
describe.each<DbProvider>(DB_TARGETS)("the payment status read on %s", (provider) => {
  let db: Db;
  let writer: AtomicWriter;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ db, writer, close } = await openTestWriter(provider, "parakh-status-read-"));
  });
  afterAll(() => close?.());

  const base = {
    merchantId: "mer_status_read",
    mode: "sandbox",
    currency: "INR",
    expiresAt: new Date("2026-11-27T10:30:00.123Z"),
  };

  it("answers a paid payment with its attempts in order, every field as Prisma reads it", async () => {
    await db.payment.create({
      data: {
        ...base,
        id: "pay_status_read_paid",
        orderId: "ORDER-1",
        amountPaise: 123_456,
        status: "SUCCESS",
        description: "Two shirts",
        customerName: "Asha Rao",
        customerEmail: "asha@example.in",
        customerPhone: "9876543210",
        redirectUrl: "https://shop.example.in/done",
        method: "UPI",
        bankReference: "UTR123456789",
        paidAt: new Date("2026-11-27T10:05:07.001Z"),
        refundedPaise: 23_456,
        createdAt: new Date("2026-11-27T10:00:00.000Z"),
        attempts: {
          create: [
            {
              id: "att_b",
              method: "UPI",
              status: "SUCCESS",
              createdAt: new Date("2026-11-27T10:04:00.000Z"),
              completedAt: new Date("2026-11-27T10:05:07.001Z"),
              timeoutAt: base.expiresAt,
            },
            // Same instant as the next: the id breaks the tie.
            {
              id: "att_a2",
              method: "CARD",
              status: "FAILED",
              errorCode: "CARD_DECLINED",
              errorMessage: "Declined by the issuer",
              createdAt: new Date("2026-11-27T10:01:00.000Z"),
              completedAt: new Date("2026-11-27T10:01:02.500Z"),
              timeoutAt: base.expiresAt,
            },
            {
              id: "att_a1",
              method: "NETBANKING",
              status: "FAILED",
              errorCode: "USER_CANCELLED",
              errorMessage: null,
              createdAt: new Date("2026-11-27T10:01:00.000Z"),
              completedAt: null,
              timeoutAt: base.expiresAt,
            },
          ],
        },
      },
    });
    const fast = await findMerchantPaymentStatus(writer, base.merchantId, "sandbox", "pay_status_read_paid");
    expect(fast).toEqual(statusView(await findMerchantPayment(db, base.merchantId, "sandbox", "pay_status_read_paid")));
    expect(fast.attempts.map((a) => a.attemptId)).toEqual(["att_a1", "att_a2", "att_b"]);
    expect(fast).toMatchObject({ amount: "1234.56", amountRefunded: "234.56", refundStatus: "PARTIAL", paidAt: "2026-11-27T10:05:07.001Z" });
  });

  it("answers a new payment without attempts or customer", async () => {
    await db.payment.create({ data: { ...base, id: "pay_status_read_new", orderId: "ORDER-2", amountPaise: 100, status: "CREATED" } });
    const fast = await findMerchantPaymentStatus(writer, base.merchantId, "sandbox", "pay_status_read_new");
    expect(fast).toEqual(statusView(await findMerchantPayment(db, base.merchantId, "sandbox", "pay_status_read_new")));
    expect(fast).toMatchObject({ customer: null, attempts: [], paidAt: null, refundStatus: "NONE" });
  });

  it("answers PAYMENT_NOT_FOUND for an unknown id, another merchant's and the other mode's", async () => {
    for (const [merchantId, mode, id] of [
      [base.merchantId, "sandbox", "pay_missing"],
      ["mer_other", "sandbox", "pay_status_read_new"],
      [base.merchantId, "live", "pay_status_read_new"],
    ] as const) {
      await expect(findMerchantPaymentStatus(writer, merchantId, mode, id)).rejects.toMatchObject({ code: "PAYMENT_NOT_FOUND" });
    }
  });
});
