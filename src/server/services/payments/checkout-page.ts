import type { Mode } from "@/lib/mode";
import { formatPaise } from "@/lib/money";
import type { PayInput } from "@/lib/schemas/checkout";
import type { Db } from "@/server/db/client";
import { AppError, isAppError, type ErrorCode } from "@/server/errors";
import { SANDBOX_BANKS } from "@/server/providers/payments/sandbox";
import type { PaymentMethodInput, PaymentProcessor } from "@/server/providers/payments/types";
import { verifyCheckoutToken } from "@/server/services/payments/checkout-token";
import { abandonAttempt, cancelPayment, completeAttempt, expirePayment, redirectTarget, startAttempt } from "@/server/services/payments/lifecycle";
import { isFinal } from "@/server/services/payments/state-machine";

/** The hosted page's actions need the token the page was rendered with. */
export function requireCheckoutToken(paymentId: string, token: string) {
  if (!verifyCheckoutToken(paymentId, token)) throw new AppError("FORBIDDEN", "This checkout link is not valid. Open it again from the merchant's site.");
}

/** The payment and the merchant's branding for the hosted page; null for an unknown id. */
export async function loadCheckoutPage(db: Db, paymentId: string) {
  if (paymentId.length > 80) return null;
  const payment = await db.payment.findUnique({
    where: { id: paymentId },
    select: { id: true, merchantId: true, mode: true, orderId: true, amountPaise: true, status: true, expiresAt: true, description: true },
  });
  if (!payment) return null;
  const merchant = await db.merchant.findUnique({
    where: { id: payment.merchantId },
    select: { name: true, displayName: true, brandColor: true, logoUrl: true, supportEmail: true },
  });
  if (!merchant) return null;
  return { payment: { ...payment, mode: payment.mode as Mode }, merchant: { ...merchant, label: merchant.displayName?.trim() || merchant.name } };
}

type CustomerAction = { kind: "intent"; url: string } | { kind: "qr"; image: string } | { kind: "redirect"; url: string };

/** A stored UPI link or QR image, or the bank's page of a netbanking attempt; anything else stored there is not shown. */
function customerActionOf(stored: string | null): CustomerAction | null {
  if (!stored) return null;
  try {
    const v = JSON.parse(stored) as { kind?: unknown; url?: unknown; image?: unknown };
    if (v.kind === "intent" && typeof v.url === "string") return { kind: "intent", url: v.url };
    if (v.kind === "qr" && typeof v.image === "string") return { kind: "qr", image: v.image };
    // Only a web page: the page puts this address in a link and sends the customer there.
    if (v.kind === "redirect" && typeof v.url === "string" && /^https?:\/\//i.test(v.url)) return { kind: "redirect", url: v.url };
  } catch {
    // not JSON: nothing to show
  }
  return null;
}

/** What the hosted page shows now: status, the latest attempt and, once final, where to send the customer. */
export async function checkoutState(db: Db, paymentId: string) {
  // A payment whose time is up is expired on sight, not only when the sweeper gets to it.
  const due = await db.payment.findFirst({
    where: { id: paymentId, status: { in: ["CREATED", "FAILED"] }, expiresAt: { lte: new Date() } },
    select: { id: true },
  });
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
      ? {
          id: a.id,
          method: a.method,
          status: a.status,
          errorCode: a.errorCode,
          errorMessage: a.errorMessage,
          vpa: a.vpa,
          cardNetwork: a.cardNetwork,
          cardLast4: a.cardLast4,
          bank: a.bank,
          // The processor's UPI link or QR, or the bank's page, of a pending live attempt: shown again after a reload.
          action: a.status === "PENDING" ? customerActionOf(a.customerAction) : null,
        }
      : null,
    redirectTo: await redirectTarget(db, p.id),
  };
}

export type CheckoutState = Awaited<ReturnType<typeof checkoutState>>;

/**
 * What the customer reads when the payment processor could not be used: the code (and its HTTP
 * status) and Retry-After stay; the vendor's own details are for the merchant and operators.
 */
const PROCESSOR_TROUBLE: Partial<Record<ErrorCode, string>> = {
  SERVICE_UNAVAILABLE: "We couldn't reach the payment network just now. Please try again in a moment.",
  SOURCE_TIMEOUT: "The payment network took too long to answer. Please try again in a moment.",
  UPSTREAM_ERROR: "The payment network sent an answer we couldn't use. Please try again in a moment.",
};

async function inCustomerWords<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isAppError(err) || !PROCESSOR_TROUBLE[err.code]) throw err;
    throw new AppError(err.code, PROCESSOR_TROUBLE[err.code], { retryAfterSeconds: err.retryAfterSeconds, cause: err });
  }
}

/** The customer pays on the hosted page with the mode's processor. */
export async function payFromCheckout(db: Db, processors: Record<Mode, PaymentProcessor>, paymentId: string, pay: PayInput) {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { mode: true } });
  if (!p) throw new AppError("PAYMENT_NOT_FOUND");
  // Live cards belong on the processor's page; a card sent here anyway is refused before anything uses it.
  if (pay.method === "CARD" && p.mode !== "sandbox") throw new AppError("VALIDATION_ERROR", "Pay by UPI or netbanking.", { field: "method" });
  if (pay.method === "NETBANKING" && p.mode === "sandbox" && !(SANDBOX_BANKS as readonly string[]).includes(pay.bank)) {
    throw new AppError("VALIDATION_ERROR", "Choose a bank from the list.", { field: "bank" });
  }
  const methodInput: PaymentMethodInput =
    pay.method === "CARD"
      ? {
          method: "CARD",
          number: pay.card.number,
          expiryMonth: pay.card.expiryMonth,
          expiryYear: pay.card.expiryYear,
          cvv: pay.card.cvv,
          name: pay.card.name ?? null,
        }
      : pay;
  const started = await inCustomerWords(() => startAttempt(db, processors[p.mode as Mode], paymentId, methodInput));
  const state = await checkoutState(db, paymentId);
  // A live attempt's UPI link, QR or bank page, for the page to show or open.
  return "next" in started ? { ...state, next: started.next } : state;
}

/**
 * Live cards: the processor's one order for the payment (made now or found again), a card attempt
 * that holds no card data, and the order's payment session for the page to open the processor's
 * own checkout with. Nothing about a card is accepted here.
 */
export async function handOffCardFromCheckout(db: Db, processors: Record<Mode, PaymentProcessor>, paymentId: string) {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { mode: true } });
  if (!p) throw new AppError("PAYMENT_NOT_FOUND");
  if (p.mode !== "live") throw new AppError("VALIDATION_ERROR", "Enter the card on this page.", { field: "method" });
  const started = await inCustomerWords(() => startAttempt(db, processors.live, paymentId, { method: "CARD", flow: "hosted" }));
  const next = "next" in started ? started.next : undefined;
  if (next?.kind !== "hosted-checkout") throw new AppError("SERVICE_UNAVAILABLE", "The payment processor's card page is not available.");
  return { ...(await checkoutState(db, paymentId)), paymentSessionId: next.sessionId };
}

export async function cancelFromCheckout(db: Db, processors: Record<Mode, PaymentProcessor>, paymentId: string) {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { mode: true } });
  await cancelPayment(db, paymentId, p ? processors[p.mode as Mode] : undefined);
  return checkoutState(db, paymentId);
}

/**
 * "Use another method" (then: retry) or "Cancel payment" (then: cancel) while an attempt is pending:
 * the attempt is ABANDONED; a late success of it is still honoured or refunded.
 */
export async function abandonFromCheckout(db: Db, processors: Record<Mode, PaymentProcessor>, paymentId: string, then: "retry" | "cancel") {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { mode: true } });
  if (!p) throw new AppError("PAYMENT_NOT_FOUND");
  await abandonAttempt(db, processors[p.mode as Mode], paymentId, { thenCancel: then === "cancel" });
  return checkoutState(db, paymentId);
}

/** Sandbox only: the UPI QR/intent simulator and the mock bank page finish the pending attempt. */
export async function simulateCheckoutOutcome(db: Db, paymentId: string, outcome: "SUCCESS" | "FAILED") {
  const p = await db.payment.findUnique({ where: { id: paymentId }, include: { attempts: { where: { status: "PENDING" }, take: 1 } } });
  if (!p) throw new AppError("PAYMENT_NOT_FOUND");
  if (p.mode !== "sandbox") throw new AppError("FORBIDDEN", "The simulator exists in sandbox only.");
  const attempt = p.attempts[0];
  if (!attempt) throw new AppError("CONFLICT", "There is no payment attempt waiting.");
  await completeAttempt(
    db,
    attempt.id,
    outcome === "SUCCESS"
      ? { outcome: "SUCCESS" }
      : {
          outcome: "FAILED",
          errorCode: "PAYMENT_DECLINED",
          errorMessage: attempt.method === "NETBANKING" ? "The bank declined the payment." : "The payment was declined in the UPI app.",
        },
  );
  return checkoutState(db, paymentId);
}
