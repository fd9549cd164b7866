/**
 * The sandbox's test values, as data: the API reference renders them and a unit test runs every row
 * against the sandbox providers, so the documentation cannot promise an outcome the sandbox does not
 * give.
 */
import type { ErrorCode } from "@/server/errors";

export interface SandboxRow {
  /** What to send (shown verbatim). */
  input: string;
  /** What comes back, in words. */
  outcome: string;
  /** Machine-checkable expectation: a status field value, or the error code of the answer. */
  expect: { field: string; value: string } | { error: ErrorCode };
}

export interface SandboxTable {
  title: string;
  /** Operations (`METHOD /path`) whose description carries this table. */
  operations: string[];
  intro: string;
  rows: SandboxRow[];
}

export const SANDBOX_PAN_ROWS: SandboxRow[] = [
  { input: "ABCPK1234F", outcome: "`VALID`, individual, Aadhaar linked (any serial not listed below)", expect: { field: "status", value: "VALID" } },
  { input: "ABCPK9991F", outcome: "`INVALID`: not on record (`name` and `name_match` null)", expect: { field: "status", value: "INVALID" } },
  { input: "ABCPK9992F", outcome: "`DEACTIVATED`", expect: { field: "status", value: "DEACTIVATED" } },
  { input: "ABCPK9993F", outcome: "`DELETED`", expect: { field: "status", value: "DELETED" } },
  { input: "ABCPK9994F", outcome: "`VALID`, individual with Aadhaar not linked", expect: { field: "aadhaar_seeding_status", value: "NOT_LINKED" } },
  { input: "ABCPK9997F", outcome: "504 `SOURCE_TIMEOUT`", expect: { error: "SOURCE_TIMEOUT" } },
  { input: "ABCPK9998F", outcome: "503 `SOURCE_UNAVAILABLE`", expect: { error: "SOURCE_UNAVAILABLE" } },
  { input: "ABCCK1234F", outcome: "`VALID` company (the 4th letter picks the category)", expect: { field: "category", value: "COMPANY" } },
];

export const SANDBOX_UAN_ROWS: SandboxRow[] = [
  {
    input: "100200300400",
    outcome: "`ACTIVE`, 1–3 employers, last contribution last month (any UAN not listed below)",
    expect: { field: "member_status", value: "ACTIVE" },
  },
  { input: "100200309991", outcome: "404 `UAN_NOT_FOUND`", expect: { error: "UAN_NOT_FOUND" } },
  { input: "100200309992", outcome: "`EXITED`, with `date_of_exit`", expect: { field: "member_status", value: "EXITED" } },
  { input: "100200309993", outcome: "`INACTIVE`", expect: { field: "member_status", value: "INACTIVE" } },
  { input: "100200309998", outcome: "503 `SOURCE_UNAVAILABLE`", expect: { error: "SOURCE_UNAVAILABLE" } },
];

export const SANDBOX_PF_ROWS: SandboxRow[] = [
  {
    input: "MH/BAN/0000064/000/0000123",
    outcome: "`ACTIVE`; slashes optional (`MHBAN00000640000000123`)",
    expect: { field: "member_status", value: "ACTIVE" },
  },
  { input: "MH/BAN/0000064/000/0009991", outcome: "404 `PF_NUMBER_NOT_FOUND`", expect: { error: "PF_NUMBER_NOT_FOUND" } },
  { input: "MH/BAN/0000064/000/0009992", outcome: "`EXITED`", expect: { field: "member_status", value: "EXITED" } },
  { input: "MH/BAN/0000064/000/0009993", outcome: "`INACTIVE`", expect: { field: "member_status", value: "INACTIVE" } },
  { input: "MH/BAN/0000064/000/0009998", outcome: "503 `SOURCE_UNAVAILABLE`", expect: { error: "SOURCE_UNAVAILABLE" } },
];

/** Aadhaar numbers as sent to generate-otp; the expectation is the verify-otp answer after OTP `123456`. */
export const SANDBOX_AADHAAR_ROWS: SandboxRow[] = [
  {
    input: "234567890009",
    outcome: "OTP sent; `123456` answers `VERIFIED` with the same eKYC record every time (any valid number not listed below)",
    expect: { field: "status", value: "VERIFIED" },
  },
  { input: "999999990019", outcome: "`VERIFIED`, another person", expect: { field: "status", value: "VERIFIED" } },
  { input: "234567899917", outcome: "422 `AADHAAR_MOBILE_NOT_LINKED` from generate-otp", expect: { error: "AADHAAR_MOBILE_NOT_LINKED" } },
  { input: "234567899929", outcome: "422 `AADHAAR_LOCKED` from generate-otp", expect: { error: "AADHAAR_LOCKED" } },
  { input: "234567899986", outcome: "503 `SOURCE_UNAVAILABLE`", expect: { error: "SOURCE_UNAVAILABLE" } },
];

/** Account numbers (with any valid IFSC unless one is shown). */
export const SANDBOX_BANK_ROWS: SandboxRow[] = [
  {
    input: "Account `50100012345678`, IFSC `HDFC0000240`",
    outcome: "`VALID`, `accountExists: true`, with a name fixed by account and IFSC (any account not listed below)",
    expect: { field: "accountStatus", value: "VALID" },
  },
  {
    input: "Account ending `0000`, e.g. `123456780000`",
    outcome: "`INVALID`, `accountExists: false`, `nameAtBank` null",
    expect: { field: "accountStatus", value: "INVALID" },
  },
  { input: "Account ending `1111`, e.g. `123456781111`", outcome: "`BLOCKED`", expect: { field: "accountStatus", value: "BLOCKED" } },
  { input: "Account ending `2222`, e.g. `123456782222`", outcome: "`PENDING` (`nameAtBank` null)", expect: { field: "accountStatus", value: "PENDING" } },
  { input: "Account ending `9998`, e.g. `123456789998`", outcome: "503 `SOURCE_UNAVAILABLE`", expect: { error: "SOURCE_UNAVAILABLE" } },
];

/** Hosted-page fixtures: the payment attempt's outcome. */
export const SANDBOX_PAYMENT_ROWS: SandboxRow[] = [
  { input: "UPI ID `success@parakh` (or any other UPI ID)", outcome: "`SUCCESS` after a short `PENDING`", expect: { field: "status", value: "SUCCESS" } },
  { input: "UPI ID `failure@parakh`", outcome: "`FAILED`", expect: { field: "status", value: "FAILED" } },
  {
    input: "UPI ID `pending@parakh`",
    outcome: "stays `PENDING` (fails with `ATTEMPT_TIMEOUT` after 15 minutes)",
    expect: { field: "status", value: "PENDING" },
  },
  { input: "Card `4111 1111 1111 1111` (or any other Luhn-valid number)", outcome: "`SUCCESS`", expect: { field: "status", value: "SUCCESS" } },
  { input: "Card `4000 0000 0000 0002`", outcome: "`FAILED`, `CARD_DECLINED`", expect: { field: "errorCode", value: "CARD_DECLINED" } },
  { input: "Card `4000 0000 0000 9995`", outcome: "`FAILED`, `INSUFFICIENT_FUNDS`", expect: { field: "errorCode", value: "INSUFFICIENT_FUNDS" } },
  { input: "Card with a Luhn-invalid number", outcome: "refused before any attempt", expect: { error: "VALIDATION_ERROR" } },
];

/** Refund fixtures: the processor's answer, keyed on the refund's reason. */
export const SANDBOX_REFUND_ROWS: SandboxRow[] = [
  { input: "Any reason, or none", outcome: "`PROCESSED` within seconds (`refund.processed`)", expect: { field: "outcome", value: "PROCESSED" } },
  {
    input: "A reason containing `fail_refund`",
    outcome: "`FAILED` (`refund.failed`); its amount is refundable again",
    expect: { field: "outcome", value: "FAILED" },
  },
];

export const SANDBOX_TABLES: SandboxTable[] = [
  {
    title: "PAN",
    operations: ["POST /v1/identity/pan/verify"],
    intro:
      "Every well-formed PAN answers, the same PAN always with the same record: a plausible name whose surname starts with the PAN's 5th letter for individuals, the category from the 4th letter. The serial (digits 6–9) picks the outcome:",
    rows: SANDBOX_PAN_ROWS,
  },
  {
    title: "EPFO by UAN",
    operations: ["POST /v1/employment/epfo/verify"],
    intro: "Every well-formed UAN answers deterministically; its last four digits pick the outcome:",
    rows: SANDBOX_UAN_ROWS,
  },
  {
    title: "EPFO by PF number",
    operations: ["POST /v1/employment/epfo/verify"],
    intro: "Every well-formed PF number answers as the member account it names; the member number's last four digits pick the outcome:",
    rows: SANDBOX_PF_ROWS,
  },
  {
    title: "Aadhaar OTP KYC",
    operations: ["POST /api/kyc/aadhaar/generate-otp", "POST /api/kyc/aadhaar/verify-otp"],
    intro:
      "Any valid Aadhaar number works (12 digits, first digit 2–9, Verhoeff check digit) and the OTP is always `123456`; any other OTP is wrong. The four digits before the check digit pick the outcome:",
    rows: SANDBOX_AADHAAR_ROWS,
  },
  {
    title: "Bank account KYC",
    operations: ["POST /api/kyc/bank/verify"],
    intro:
      "Any valid IFSC and account number answer, the same pair always the same way; the bank comes from the IFSC's first four letters. The account's last four digits pick the outcome:",
    rows: SANDBOX_BANK_ROWS,
  },
  {
    title: "Payments on the hosted checkout page",
    operations: ["POST /api/checkout"],
    intro:
      "Open the `checkoutUrl` of a sandbox payment and pay with these; UPI QR and app payments show a simulator with Success and Failure buttons, and netbanking a mock bank page.",
    rows: SANDBOX_PAYMENT_ROWS,
  },
  {
    title: "Refunds",
    operations: ["POST /api/payments/{paymentId}/refunds"],
    intro:
      "A sandbox refund starts `PENDING` and is settled by the durable job queue; the reason picks the outcome. Drive payments to `SUCCESS` without a browser with `POST /api/sandbox/payments/{paymentId}/simulate`.",
    rows: SANDBOX_REFUND_ROWS,
  },
];

export function sandboxTableMarkdown(table: SandboxTable): string {
  const rows = table.rows.map((r) => `| ${r.input.includes("`") ? r.input : `\`${r.input}\``} | ${r.outcome} |`);
  return [`**Sandbox: ${table.title}.** ${table.intro}`, "", "| Send | Sandbox answer |", "|---|---|", ...rows].join("\n");
}
