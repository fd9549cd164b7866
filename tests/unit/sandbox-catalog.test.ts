import { describe, expect, it } from "vitest";
import { isAppError } from "@/server/errors";
import { sandboxAadhaarProvider } from "@/server/providers/sandbox/aadhaar";
import { sandboxBankProvider } from "@/server/providers/sandbox/bank";
import { sandboxEpfoProvider } from "@/server/providers/sandbox/epfo";
import { sandboxPanProvider } from "@/server/providers/sandbox/pan";
import { sandboxProcessor } from "@/server/providers/payments/sandbox";
import type { PaymentMethodInput } from "@/server/providers/payments/types";
import {
  SANDBOX_AADHAAR_ROWS,
  SANDBOX_BANK_ROWS,
  SANDBOX_PAN_ROWS,
  SANDBOX_PAYMENT_ROWS,
  SANDBOX_PF_ROWS,
  SANDBOX_REFUND_ROWS,
  SANDBOX_UAN_ROWS,
  type SandboxRow,
} from "@/server/providers/sandbox-catalog";
import { verifyEpfo } from "@/server/services/employment/verify-epfo";
import { panVerifyRequestExample } from "@/server/rest/openapi-examples";
import { verifyPan } from "@/server/services/identity/verify-pan";

/** Runs one call and checks it against the row's documented expectation. */
async function check(row: SandboxRow, call: () => Promise<Record<string, unknown>>) {
  let answer: Record<string, unknown> | undefined;
  let code: string | undefined;
  try {
    answer = await call();
  } catch (err) {
    if (!isAppError(err)) throw err;
    code = err.code;
  }
  if ("error" in row.expect) expect(code, row.input).toBe(row.expect.error);
  else expect(answer?.[row.expect.field], row.input).toBe(row.expect.value);
}

/** The outcome the sandbox processor scripts for a documented hosted-page input. */
async function paymentOutcome(input: string): Promise<Record<string, unknown>> {
  const vpa = /UPI ID `([^`]+)`/.exec(input)?.[1];
  const card = /Card `([\d ]+)`/.exec(input)?.[1];
  const method: PaymentMethodInput = vpa
    ? { method: "UPI", flow: "collect", vpa }
    : { method: "CARD", number: card ?? "4111 1111 1111 1112", expiryMonth: 12, expiryYear: 2030, cvv: "123" };
  const { plan } = await sandboxProcessor.startAttempt({ id: "pay_1_test", amountPaise: 100 }, method);
  if (plan.kind === "succeed") return { status: "SUCCESS" };
  if (plan.kind === "fail") return { status: "FAILED", errorCode: plan.errorCode };
  return { status: "PENDING" };
}

/** generate-otp, then verify-otp with the documented OTP. */
async function aadhaarOutcome(aadhaarNumber: string): Promise<Record<string, unknown>> {
  const sent = await sandboxAadhaarProvider.sendOtp(aadhaarNumber);
  const result = await sandboxAadhaarProvider.submitOtp(aadhaarNumber, sent.reference, "123456");
  return { status: result.kind === "verified" ? "VERIFIED" : "INVALID_OTP" };
}

/** The account is the last backticked number; the IFSC the one shown, else any valid one. */
async function bankOutcome(input: string): Promise<Record<string, unknown>> {
  const account = [...input.matchAll(/`(\d{9,18})`/g)].at(-1)?.[1];
  const ifsc = /`([A-Z]{4}0[A-Z0-9]{6})`/.exec(input)?.[1] ?? "SBIN0000001";
  if (!account) throw new Error(`no account number in ${input}`);
  return { ...(await sandboxBankProvider.verifyAccount(account, ifsc)) };
}

describe("the documented sandbox test values", () => {
  it.each(SANDBOX_PAN_ROWS)("PAN $input → $outcome", (row) => check(row, async () => ({ ...(await verifyPan(sandboxPanProvider, row.input, null)) })));

  it.each(SANDBOX_UAN_ROWS)("UAN $input → $outcome", (row) => check(row, async () => ({ ...(await verifyEpfo(sandboxEpfoProvider, { uan: row.input })) })));

  it.each(SANDBOX_PF_ROWS)("PF number $input → $outcome", (row) =>
    check(row, async () => ({ ...(await verifyEpfo(sandboxEpfoProvider, { pfNumber: row.input })) })),
  );

  it.each(SANDBOX_AADHAAR_ROWS)("Aadhaar $input → $outcome", (row) => check(row, () => aadhaarOutcome(row.input)));

  it.each(SANDBOX_BANK_ROWS)("bank $input → $outcome", (row) => check(row, () => bankOutcome(row.input)));

  it.each(SANDBOX_PAYMENT_ROWS)("payment $input → $outcome", (row) => check(row, () => paymentOutcome(row.input)));

  it.each(SANDBOX_REFUND_ROWS)("refund $input → $outcome", (row) =>
    check(row, async () => {
      const reason = /`([^`]+)`/.exec(row.input)?.[1] ?? null;
      return { ...(await sandboxProcessor.refund({ id: "rfnd_x", paymentId: "pay_x", attemptId: null, amountPaise: 100, reason })) };
    }),
  );

  it("the PAN example is a full name match on the sandbox", async () => {
    const example = panVerifyRequestExample();
    const data = await verifyPan(sandboxPanProvider, example.pan, example.name);
    expect(data.name?.toUpperCase()).toBe(example.name.toUpperCase());
    expect(data).toMatchObject({ status: "VALID", name_match: 100, name_match_result: "MATCH" });
  });
});
