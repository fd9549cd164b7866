import { formatPaise } from "@/lib/money";
import { AppError } from "@/server/errors";
import { apiOk } from "@/server/rest/envelope";
import { activeSigningSecrets } from "@/server/services/merchants/signing-secrets";
import { findMerchantPayment } from "@/server/services/payments/payments";
import { matchesRedirectSignature } from "@/server/services/payments/signature";
import { merchantProcedure } from "@/server/trpc/procedures";
import type { PaymentStatus } from "@/server/services/payments/state-machine";
import { verifyPaymentInput, verifyPaymentMeta, verifyPaymentOutput } from "@/server/api/payments/verify-payment.schema";

export const verifyPaymentProcedure = merchantProcedure
  .meta(verifyPaymentMeta)
  .input(verifyPaymentInput)
  .output(verifyPaymentOutput)
  .mutation(async ({ ctx, input }) => {
    const { merchantId, mode } = ctx.rest!.auth!;
    const db = ctx.services.db;
    const p = await findMerchantPayment(db, merchantId, mode, input.paymentId);
    if (input.orderId && input.orderId !== p.orderId) throw new AppError("ORDER_MISMATCH", undefined, { field: "orderId" });
    let signatureOk = true;
    if (input.signature) {
      const secrets = await activeSigningSecrets(db, merchantId, mode);
      signatureOk = matchesRedirectSignature(secrets, input.orderId!, input.paymentId, input.status!, input.signature);
      if (!signatureOk) throw new AppError("SIGNATURE_INVALID", undefined, { field: "signature" });
    }
    return apiOk({
      verified: signatureOk && p.status === "SUCCESS",
      paymentId: p.id,
      merchantOrderId: p.orderId,
      status: p.status as PaymentStatus,
      amount: formatPaise(p.amountPaise),
      currency: "INR" as const,
      method: p.method,
      paidAt: p.paidAt ? p.paidAt.toISOString() : null,
      bankReference: p.bankReference,
    });
  });
