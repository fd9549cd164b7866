// The UPI intent (deep link) the QR code and the "Pay with UPI app" button carry.

/**
 * Payee address of the collecting account. Sandbox intents never reach a real app, so a fixed
 * address is enough; live mode will take the processor's collecting VPA once one is configured.
 */
export const SANDBOX_UPI_PAYEE = "parakh.sandbox@parakh";

/** `upi://pay?pa=…&pn=…&am=499.00&cu=INR&tn=<orderId>&tr=<paymentId>` (NPCI linking spec). */
export function upiIntentUrl(p: { payee: string; payeeName: string; amount: string; orderId: string; paymentId: string }): string {
  const q = new URLSearchParams({ pa: p.payee, pn: p.payeeName, am: p.amount, cu: "INR", tn: p.orderId, tr: p.paymentId });
  // UPI apps expect %20 for spaces, not "+".
  return `upi://pay?${q.toString().replace(/\+/g, "%20")}`;
}
