import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PAYMENT_STATUS_OUTCOMES, REFUND_STATUS_OUTCOMES, attemptOutcome, refundOutcome } from "@/server/providers/payments/cashfree-outcomes";

// The tables of the vendor's payment and refund statuses in docs/going-live.md, read as an operator
// reads them and held equal to the tables the code applies, so neither can change without the other.
const doc = fs.readFileSync(path.join(__dirname, "../../docs/going-live.md"), "utf8");

/** The rows of the first table after `marker`: each row's cells, header and rule left out. */
function tableAfter(marker: string): string[][] {
  const at = doc.indexOf(marker);
  expect(at, marker).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(at).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** `A`, `B` in a cell → ["A", "B"]; "any other" → []. */
const codes = (cell: string) => [...cell.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!);

describe("the live payment tables of docs/going-live.md", () => {
  it("name every vendor payment status the code maps, each to the attempt result the code gives", () => {
    const rows = tableAfter("**Payment status**");
    const readmeTable: Record<string, string> = {};
    for (const [vendor, parakh] of rows) {
      const result = parakh!.startsWith("pending") ? "PENDING" : codes(parakh!).slice(0, 2).join(" ");
      if (vendor!.startsWith("any other")) expect(result, "any other").toBe("PENDING");
      for (const status of codes(vendor!)) readmeTable[status] = result;
    }
    const codeTable = Object.fromEntries(
      Object.entries(PAYMENT_STATUS_OUTCOMES).map(([status, o]) => [status, o.result === "FAILED" ? `FAILED ${o.errorCode}` : o.result]),
    );
    expect(readmeTable).toEqual(codeTable);
    // The rows the table states in words: another amount or currency, and a status it does not name.
    const payment = {
      cfPaymentId: "1",
      orderId: "pay_1",
      amountPaise: 100,
      currency: "INR",
      group: "upi",
      bankReference: "R1",
      errorCode: null,
      errorDescription: null,
      startedAt: null,
    };
    expect(attemptOutcome({ ...payment, status: "SUCCESS" }, 200)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
    expect(attemptOutcome({ ...payment, status: "SUCCESS", currency: "USD" }, 100)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
    expect(doc).toContain("A `SUCCESS` for another amount than the payment's, or in another currency than INR, is `FAILED`, `AMOUNT_MISMATCH`");
    expect(attemptOutcome({ ...payment, status: "FLAGGED" }, 100)).toEqual({ result: "PENDING" });
  });

  it("name every vendor refund status the code maps, each to the refund's end the code gives, with its reason", () => {
    const rows = tableAfter("**Refund status**");
    const readmeTable: Record<string, string | null> = {};
    for (const [vendor, parakh] of rows) {
      const end = parakh!.startsWith("pending") ? null : codes(parakh!)[0]!;
      if (vendor!.startsWith("any other")) expect(end, "any other").toBeNull();
      for (const status of codes(vendor!)) readmeTable[status] = end;
    }
    expect(readmeTable).toEqual({ ...REFUND_STATUS_OUTCOMES });
    const refund = (status: string) => ({ refundId: "rfnd_1", cfRefundId: "1", status, amountPaise: 100, statusDescription: null });
    const failed = rows.find(([vendor]) => codes(vendor!).includes("CANCELLED"))![1]!;
    const reason = refundOutcome(refund("CANCELLED"));
    expect(reason).toMatchObject({ outcome: "FAILED" });
    expect(failed).toContain(`"${(reason as { failureReason: string }).failureReason.replace("CANCELLED:", "CANCELLED (or FAILED):")}"`);
    expect(refundOutcome(refund("SOMETHING_NEW"))).toBeNull();
  });

  it("give the webhook URL the code registers with the vendor, and the webhook version of the API it calls", async () => {
    const { CASHFREE_WEBHOOK_PATH, PG_API_VERSION } = await import("@/server/providers/payments/cashfree-pg");
    expect(doc).toContain(`\`{APP_URL}${CASHFREE_WEBHOOK_PATH}\``);
    expect(doc).toContain(`Choose webhook version \`${PG_API_VERSION}\``);
  });
});
