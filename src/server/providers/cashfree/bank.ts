/**
 * Live bank source: Cashfree Secure ID's "Bank Account Verification Sync V2" (`POST
 * /bank-account/sync`). Parakh scores names itself, so no name is sent.
 *
 *   account_status_code            accountStatus  accountExists  nameAtBank
 *   ACCOUNT_IS_VALID               VALID          true           name_at_bank
 *   ACCOUNT_BLOCKED                BLOCKED        true           name_at_bank (usually null)
 *   INVALID_ACCOUNT_FAIL           INVALID        false          null
 *   INVALID_IFSC_FAIL              INVALID        false          null
 *   NRE_ACCOUNT_FAIL               INVALID        false          null (an NRE account cannot be verified)
 *   422 fraud_account              BLOCKED        true           null
 *   (another code) account_status VALID / INVALID as above
 *
 * The bank's other refusals (failed_at_bank, npci_unavailable, connection_timeout, bank declined or
 * offline, imps_mode_fail, a check already running) are 503 SOURCE_UNAVAILABLE with Retry-After 5:
 * one bank being down is not the vendor being down, so they do not count against the breaker.
 * `bankReference` is the UTR, else the vendor's reference id; the branch's state is not given (null).
 */
import { AppError } from "@/server/errors";
import { DEFAULT_RETRY_AFTER_SECONDS, unreadableAnswer, type UpstreamAnswer, type UpstreamClient } from "@/server/providers/upstream/client";
import { objectBody, sourceBusy, text, unexpectedRefusal, upper } from "@/server/providers/cashfree/secure-id";
import type { BankAccountCheck, BankAccountStatus, BankProvider } from "@/server/providers/bank/types";

const BY_STATUS_CODE: Record<string, { accountStatus: BankAccountStatus; accountExists: boolean }> = {
  ACCOUNT_IS_VALID: { accountStatus: "VALID", accountExists: true },
  ACCOUNT_BLOCKED: { accountStatus: "BLOCKED", accountExists: true },
  INVALID_ACCOUNT_FAIL: { accountStatus: "INVALID", accountExists: false },
  INVALID_IFSC_FAIL: { accountStatus: "INVALID", accountExists: false },
  NRE_ACCOUNT_FAIL: { accountStatus: "INVALID", accountExists: false },
};

const BANK_SIDE_FAILURES = new Set([
  "failed_at_bank",
  "npci_unavailable",
  "connection_timeout",
  "source_bank_declined",
  "bene_bank_declined",
  "imps_mode_fail",
  "benficiary_bank_offline",
  "beneficiary_bank_offline",
  "verification_already_under_process",
]);

/** The check in a sync answer (exported for the mapping tests). */
export function bankCheckFromAnswer(body: Record<string, unknown>): BankAccountCheck {
  const code = upper(body.account_status_code);
  const byStatus = upper(body.account_status);
  const mapped =
    (code !== null ? BY_STATUS_CODE[code] : undefined) ??
    (byStatus === "VALID" ? BY_STATUS_CODE.ACCOUNT_IS_VALID : byStatus === "INVALID" ? BY_STATUS_CODE.INVALID_ACCOUNT_FAIL : undefined);
  if (!mapped) throw unreadableAnswer("no account status");
  const name = mapped.accountExists ? upper(body.name_at_bank) : null;
  if (mapped.accountStatus === "VALID" && !name) throw unreadableAnswer("a valid account without a name");
  return {
    accountExists: mapped.accountExists,
    accountStatus: mapped.accountStatus,
    nameAtBank: name,
    bankReference: text(body.utr) ?? text(body.reference_id) ?? "",
    ifscDetails: { bank: text(body.bank_name), branch: text(body.branch), city: text(body.city), state: null },
  };
}

/** The vendor's fraud flag is an answer about the account, not a failure. */
function fraudAccount(body: Record<string, unknown>): BankAccountCheck {
  const error = body.error && typeof body.error === "object" ? (body.error as Record<string, unknown>) : {};
  return {
    accountExists: true,
    accountStatus: "BLOCKED",
    nameAtBank: null,
    bankReference: text(error.reference_id) ?? "",
    ifscDetails: { bank: null, branch: null, city: null, state: null },
  };
}

function refusal(client: UpstreamClient, answer: UpstreamAnswer): Error {
  const body = objectBody(answer);
  const code = text(body.code);
  if (answer.status === 422 && code !== null && BANK_SIDE_FAILURES.has(code)) {
    return sourceBusy("SOURCE_UNAVAILABLE", "The bank could not be reached for this check; retry later.", DEFAULT_RETRY_AFTER_SECONDS);
  }
  if (answer.status === 400 && code !== null && /^ifsc_/.test(code)) return new AppError("INVALID_IFSC");
  if (answer.status === 400 && code !== null && /^bank_account_/.test(code)) return new AppError("INVALID_ACCOUNT_NUMBER");
  return unexpectedRefusal(client, answer);
}

export function createCashfreeBankProvider(client: UpstreamClient): BankProvider {
  return {
    async verifyAccount(accountNumber, ifsc, options = {}) {
      const request = { method: "POST" as const, path: "/bank-account/sync", body: { bank_account: accountNumber, ifsc }, deadlineAt: options.deadlineAt };
      return client.call(request, (answer) => {
        if (answer.status === 200) return bankCheckFromAnswer(objectBody(answer));
        const body = objectBody(answer);
        if (answer.status === 422 && text(body.code) === "fraud_account") return fraudAccount(body);
        throw refusal(client, answer);
      });
    },
  };
}
