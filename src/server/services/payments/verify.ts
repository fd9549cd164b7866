import type { Mode } from "@/lib/mode";
import { formatPaise } from "@/lib/money";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { activeSigningSecrets } from "@/server/services/merchants/signing-secrets";
import { findMerchantPayment } from "@/server/services/payments/payments";
import { matchesRedirectSignature } from "@/server/services/payments/signature";
import type { PaymentStatus } from "@/server/services/payments/state-machine";
import { isoOrNull } from "@/server/lib/dates";

/**
 * What a merchant's server checks after a redirect: the signature it received (recomputed from the
 * values it sent, against every signing secret still valid) and the stored status. `verified` is
 * true only for a valid signature and a stored SUCCESS; the status answered is always the stored one.
 */
export async function verifyPayment(
  db: Db,
  merchantId: string,
  mode: Mode,
  input: { paymentId: string; orderId?: string | null; status?: string | null; signature?: string | null },
) {
  const p = await findMerchantPayment(db, merchantId, mode, input.paymentId);
  if (input.orderId && input.orderId !== p.orderId) throw new AppError("ORDER_MISMATCH", undefined, { field: "orderId" });
  if (input.signature) {
    const secrets = await activeSigningSecrets(db, merchantId, mode);
    if (!matchesRedirectSignature(secrets, input.orderId ?? "", input.paymentId, input.status ?? "", input.signature)) {
      throw new AppError("SIGNATURE_INVALID", undefined, { field: "signature" });
    }
  }
  return {
    verified: p.status === "SUCCESS",
    paymentId: p.id,
    merchantOrderId: p.orderId,
    status: p.status as PaymentStatus,
    amount: formatPaise(p.amountPaise),
    currency: "INR" as const,
    method: p.method,
    paidAt: isoOrNull(p.paidAt),
    bankReference: p.bankReference,
  };
}
