import type { KycTransactionRow } from "@/server/services/wallet/holds";

/** A KYC transaction for a capture to write, with made-up values (its fee and balance come from the capture). */
export function kycRow(id: string, at = new Date()): KycTransactionRow {
  return {
    id,
    kind: "PAN",
    requestId: `req_${id}`,
    otpRequestId: null,
    subjectMasked: "ABCPKXXXXF",
    outcome: "VALID",
    nameMatchScore: 0.93,
    resultEnc: "enc",
    resultExpiresAt: new Date(at.getTime() + 86_400_000),
    createdAt: at,
  };
}
