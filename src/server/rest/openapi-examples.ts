/**
 * Request/response examples for the API reference and the start-up banner, computed by the same
 * services and sandbox providers that answer real calls, so a documented example is what the
 * sandbox returns for it.
 */
import { apiOkWithMessage, v1Ok, v1OkNoTimestamp } from "@/server/rest/envelope";
import { formatPaise } from "@/lib/money";
import { DEFAULT_KYC_FEES, type KycKind } from "@/lib/kyc";
import { maskAadhaar } from "@/lib/aadhaar";
import { sandboxAadhaarEkyc } from "@/server/providers/sandbox/aadhaar";
import { sandboxBankProvider } from "@/server/providers/sandbox/bank";
import { SANDBOX_OPENING_CREDIT_PAISE } from "@/server/services/wallet/wallet";
import { nameMatchOf } from "@/server/services/kyc/pan-kyc";
import { nameHolderOfPan } from "@/server/services/identity/name-match";
import { sandboxEpfoProvider } from "@/server/providers/sandbox/epfo";
import { sandboxPanRecord, sandboxPanProvider } from "@/server/providers/sandbox/pan";
import { verifyEpfo } from "@/server/services/employment/verify-epfo";
import { verifyPan } from "@/server/services/identity/verify-pan";

export interface OperationExample {
  request?: Record<string, unknown>;
  response: unknown;
}

export const EXAMPLE_PAN = "ABCPK1234F";
export const EXAMPLE_UAN = "100200300400";

/** "ARJUN KAPOOR" → "Arjun Kapoor": how a merchant's form would send the holder's name. */
function asTyped(name: string): string {
  return name.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());
}

/** The PAN example: the holder name on the sandbox's record, so the example is a full match. */
export function panVerifyRequestExample(): { pan: string; name: string } {
  const record = sandboxPanRecord(EXAMPLE_PAN);
  return { pan: EXAMPLE_PAN, name: asTyped(record.name ?? "") };
}

const EXAMPLE_MERCHANT = "mer_8fK2mQ9xT4bV1cZ7";
const EXAMPLE_AADHAAR = "234567890009";
const EXAMPLE_ACCOUNT = "50100123456789";
const EXAMPLE_IFSC = "HDFC0001234";

/** The fields every charged KYC answer adds: a first charge of the default fee on a new sandbox wallet. */
function chargeExample(kind: KycKind, id: string) {
  const fee = DEFAULT_KYC_FEES[kind];
  return {
    kycTransactionId: id,
    charge: { amount: formatPaise(fee), currency: "INR" as const },
    walletBalance: formatPaise(SANDBOX_OPENING_CREDIT_PAISE - fee),
  };
}

async function kycExamples(): Promise<Record<string, OperationExample>> {
  const pan = panVerifyRequestExample();
  const record = sandboxPanRecord(pan.pan);
  const bank = await sandboxBankProvider.verifyAccount(EXAMPLE_ACCOUNT, EXAMPLE_IFSC);
  const bankName = asTyped(bank.nameAtBank ?? "");
  const requestId = "kyc_req_H7d2Lm9QxT3vB8kP";
  const sentAt = new Date("2026-11-22T10:15:30.123Z");
  const otpMessage = "OTP sent to the mobile number ending 4321 linked with this Aadhaar number.";
  return {
    "POST /api/kyc/aadhaar/generate-otp": {
      request: { merchantId: EXAMPLE_MERCHANT, aadhaarNumber: EXAMPLE_AADHAAR },
      response: apiOkWithMessage(otpMessage, {
        requestId,
        message: otpMessage,
        expiresAt: new Date(sentAt.getTime() + 10 * 60_000).toISOString(),
        resendAvailableAt: new Date(sentAt.getTime() + 60_000).toISOString(),
      }),
    },
    "POST /api/kyc/aadhaar/verify-otp": {
      request: { merchantId: EXAMPLE_MERCHANT, aadhaarNumber: EXAMPLE_AADHAAR, otp: "123456", requestId },
      response: apiOkWithMessage("Aadhaar verified.", {
        requestId,
        status: "VERIFIED",
        maskedAadhaar: maskAadhaar(EXAMPLE_AADHAAR),
        ...sandboxAadhaarEkyc(EXAMPLE_AADHAAR),
        ...chargeExample("AADHAAR_OTP", "kyc_txn_Q2w9Xk4mTz8bV1cN"),
        verifiedAt: new Date(sentAt.getTime() + 45_000).toISOString(),
      }),
    },
    "POST /api/kyc/pan/verify": {
      request: { merchantId: EXAMPLE_MERCHANT, pan: pan.pan, name: pan.name, dob: record.dob },
      response: apiOkWithMessage("PAN verified.", {
        pan: record.pan,
        status: record.status,
        registeredName: record.name,
        category: record.category,
        nameMatch: nameMatchOf(pan.name, record.name, nameHolderOfPan(record.category)),
        dobMatch: true,
        aadhaarSeedingStatus: record.aadhaarSeedingStatus,
        ...chargeExample("PAN", "kyc_txn_P7mQ2xK9vT4bZ1cW"),
      }),
    },
    "POST /api/kyc/bank/verify": {
      request: { merchantId: EXAMPLE_MERCHANT, accountNumber: EXAMPLE_ACCOUNT, ifsc: EXAMPLE_IFSC, name: bankName },
      response: apiOkWithMessage("Bank account verified.", {
        accountExists: bank.accountExists,
        accountStatus: bank.accountStatus,
        nameAtBank: bank.nameAtBank,
        nameMatch: nameMatchOf(bankName, bank.nameAtBank, "UNKNOWN"),
        ifscDetails: bank.ifscDetails,
        bankReference: bank.bankReference,
        ...chargeExample("BANK", "kyc_txn_B3nV8kQ1xT6mZ2cP"),
      }),
    },
  };
}

export async function operationExamples(): Promise<Record<string, OperationExample>> {
  const pan = panVerifyRequestExample();
  return {
    ...(await kycExamples()),
    "POST /v1/identity/pan/verify": { request: pan, response: v1Ok(await verifyPan(sandboxPanProvider, pan.pan, pan.name)) },
    ...(await batchExamples()),
    "POST /v1/employment/epfo/verify": {
      request: { uan: EXAMPLE_UAN },
      response: v1OkNoTimestamp(await verifyEpfo(sandboxEpfoProvider, { uan: EXAMPLE_UAN })),
    },
  };
}

const EXAMPLE_BATCH_ID = "batch_8fK2mQ7xLp3Rt9Za";
const EXAMPLE_BATCH_AT = "2026-11-22T10:15:30.123Z";

/** A well-formed PAN the sandbox has no record of: an outcome (INVALID), where a malformed one would break the items' schema. */
const UNKNOWN_PAN = "ABCPK9991F";

async function batchExamples(): Promise<Record<string, OperationExample>> {
  const pan = panVerifyRequestExample();
  const summary = (total: number, rejected: number) =>
    v1Ok({ batch_id: EXAMPLE_BATCH_ID, status: "QUEUED", total, accepted: total - rejected, rejected, created_at: EXAMPLE_BATCH_AT });
  const done = {
    batch_id: EXAMPLE_BATCH_ID,
    status: "COMPLETED",
    total: 2,
    accepted: 2,
    rejected: 0,
    processed: 2,
    succeeded: 2,
    failed: 0,
    client_batch_id: "payroll-2026-11",
    created_at: EXAMPLE_BATCH_AT,
    started_at: "2026-11-22T10:15:30.201Z",
    completed_at: "2026-11-22T10:15:30.342Z",
  };
  return {
    "POST /v1/identity/pan/batch": {
      request: {
        items: [
          { ...pan, reference_id: "emp-1" },
          { pan: UNKNOWN_PAN, reference_id: "emp-2" },
        ],
        webhook_url: "https://shop.example/webhooks/parakh",
        client_batch_id: "payroll-2026-11",
      },
      response: summary(2, 0),
    },
    "POST /v1/employment/epfo/batch": {
      request: { items: [{ uan: EXAMPLE_UAN, reference_id: "emp-1" }, { pf_number: "MH/BAN/0000064/000/0000123" }] },
      response: summary(2, 0),
    },
    "GET /v1/identity/pan/batch/{batch_id}": { response: v1Ok(done) },
    "GET /v1/identity/pan/batch/{batch_id}/results": {
      response: v1Ok({
        items: [
          { index: 0, reference_id: "emp-1", input: pan, result: await verifyPan(sandboxPanProvider, pan.pan, pan.name), error: null, status: "SUCCEEDED" },
          {
            index: 1,
            reference_id: "emp-2",
            input: { pan: UNKNOWN_PAN, name: null },
            result: await verifyPan(sandboxPanProvider, UNKNOWN_PAN, null),
            error: null,
            status: "SUCCEEDED",
          },
        ],
        next_cursor: null,
      }),
    },
  };
}
