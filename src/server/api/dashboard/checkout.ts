import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { formatPaise } from "@/lib/money";
import { payInput } from "@/lib/schemas/checkout";
import { AppError } from "@/server/errors";
import { luhnValid } from "@/lib/cards";
import { SANDBOX_BANKS } from "@/server/providers/payments/sandbox";
import { verifyCheckoutToken } from "@/server/services/payments/checkout-token";
import { cancelPayment, completeAttempt, expirePayment, redirectTarget, startAttempt } from "@/server/services/payments/lifecycle";
import { isFinal } from "@/server/services/payments/state-machine";
import { publicDashboardProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

const tokenInput = z.object({ paymentId: z.string().min(1).max(80), token: z.string().min(1).max(200) });

/** The hosted page's own endpoints: public, but each needs the token the page was rendered with. */
const checkoutProcedure = publicDashboardProcedure.input(tokenInput).use(({ input, next }) => {
  const { paymentId, token } = input as z.infer<typeof tokenInput>;
  if (!verifyCheckoutToken(paymentId, token)) throw new TRPCError({ code: "FORBIDDEN", message: "This checkout link is not valid. Open it again from the merchant's site." });
  return next();
});

async function loadState(db: Parameters<typeof redirectTarget>[0], paymentId: string) {
  // A payment whose time is up is expired on sight, not only when the sweeper gets to it.
  const due = await db.payment.findFirst({ where: { id: paymentId, status: { in: ["CREATED", "FAILED"] }, expiresAt: { lte: new Date() } }, select: { id: true } });
  if (due) await expirePayment(db, due.id);
  const p = await db.payment.findUnique({ where: { id: paymentId }, include: { attempts: { orderBy: { createdAt: "desc" }, take: 1 } } });
  if (!p) throw new AppError("PAYMENT_NOT_FOUND");
  const a = p.attempts[0];
  return {
    paymentId: p.id,
    status: p.status,
    isFinal: isFinal(p.status),
    amount: formatPaise(p.amountPaise),
    expiresAt: p.expiresAt.toISOString(),
    paidAt: p.paidAt?.toISOString() ?? null,
    bankReference: p.bankReference,
    method: p.method,
    attempt: a
      ? { id: a.id, method: a.method, status: a.status, errorCode: a.errorCode, errorMessage: a.errorMessage, vpa: a.vpa, cardNetwork: a.cardNetwork, cardLast4: a.cardLast4, bank: a.bank }
      : null,
    redirectTo: await redirectTarget(db, p.id),
  };
}

export const checkoutRouter = router({
  state: checkoutProcedure.query(({ ctx, input }) => loadState(ctx.services.db, input.paymentId)),

  pay: checkoutProcedure.input(z.object({ payment: payInput })).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const p = await db.payment.findUnique({ where: { id: input.paymentId }, select: { mode: true } });
    if (!p) throw new AppError("PAYMENT_NOT_FOUND");
    const pay = input.payment;
    if (pay.method === "CARD" && !luhnValid(pay.card.number)) throw new AppError("VALIDATION_ERROR", "The card number is not valid.", { field: "number" });
    if (pay.method === "NETBANKING" && p.mode === "sandbox" && !(SANDBOX_BANKS as readonly string[]).includes(pay.bank)) {
      throw new AppError("VALIDATION_ERROR", "Choose a bank from the list.", { field: "bank" });
    }
    const processor = ctx.services.paymentProcessors[p.mode as "sandbox" | "live"];
    const methodInput =
      pay.method === "CARD"
        ? { method: "CARD" as const, number: pay.card.number, expiryMonth: pay.card.expiryMonth, expiryYear: pay.card.expiryYear, cvv: pay.card.cvv, name: pay.card.name ?? null }
        : pay;
    await startAttempt(db, processor, input.paymentId, methodInput);
    return loadState(db, input.paymentId);
  }),

  cancel: checkoutProcedure.mutation(async ({ ctx, input }) => {
    await cancelPayment(ctx.services.db, input.paymentId);
    return loadState(ctx.services.db, input.paymentId);
  }),

  /** Sandbox only: the UPI QR/intent simulator and the mock bank page finish the pending attempt. */
  simulate: checkoutProcedure.input(z.object({ outcome: z.enum(["SUCCESS", "FAILED"]) })).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const p = await db.payment.findUnique({ where: { id: input.paymentId }, include: { attempts: { where: { status: "PENDING" }, take: 1 } } });
    if (!p) throw new AppError("PAYMENT_NOT_FOUND");
    if (p.mode !== "sandbox") throw new TRPCError({ code: "FORBIDDEN", message: "The simulator exists in sandbox only." });
    const attempt = p.attempts[0];
    if (!attempt) throw new AppError("CONFLICT", "There is no payment attempt waiting.");
    await completeAttempt(
      db,
      attempt.id,
      input.outcome === "SUCCESS" ? { outcome: "SUCCESS" } : { outcome: "FAILED", errorCode: "PAYMENT_DECLINED", errorMessage: attempt.method === "NETBANKING" ? "The bank declined the payment." : "The payment was declined in the UPI app." },
    );
    return loadState(db, input.paymentId);
  }),
});
