/**
 * Live bank source: Setu's PennyLess verification (`POST /api/verify/ban/pennyless` with
 * `{ accountNumber, ifsc }`), synchronous, no money moved. Setu takes no consent field here; the
 * connector still calls Setu only with the call's consent on record, as every vendor call must carry it (C6).
 *
 *   answer                                          accountStatus  accountExists  nameAtBank
 *   200 status "SUCCESS"                            VALID          true           data.bankAccountName
 *   200 status "ERROR" ("Invalid bank details")     INVALID        false          null
 *
 * Setu's other failures (400 bad_request, 500 upstream_service_error) come as its error object,
 * without `status`: they are no answer about the account.
 *
 * `ifscDetails` from `data.ifscDetails` (name, branch, city, state); `bankReference` is Setu's
 * `traceId` (PennyLess makes no transfer, so there is no UTR). What Setu does not give: a blocked
 * or closed account (it answers FAILED for any account it cannot verify: INVALID), and a name-match score.
 */
import { unreadableAnswer, type UpstreamClient } from "@/server/providers/upstream/client";
import { objectBody, text, upper } from "@/server/providers/cashfree/secure-id";
import { VendorNotApplicable } from "@/server/providers/failover";
import type { BankAccountCheck, BankProvider } from "@/server/providers/bank/types";
import { unexpectedSetuRefusal } from "./client";

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The check in a PennyLess answer of HTTP 200 (exported for the mapping tests); null when the body says nothing of the account. */
export function bankCheckFromSetu(body: Record<string, unknown>): BankAccountCheck | null {
  const status = upper(body.status);
  const reference = text(body.traceId) ?? "";
  // Setu's page files "Invalid bank details" under HTTP 200 with status ERROR: processed, and the account is not valid.
  if (status === "ERROR") {
    return {
      accountExists: false,
      accountStatus: "INVALID",
      nameAtBank: null,
      bankReference: reference,
      ifscDetails: { bank: null, branch: null, city: null, state: null },
    };
  }
  if (status !== "SUCCESS") return null;
  const data = record(body.data);
  const name = upper(data.bankAccountName);
  if (!name) throw unreadableAnswer("a verified account without a name");
  const ifsc = record(data.ifscDetails);
  return {
    accountExists: true,
    accountStatus: "VALID",
    nameAtBank: name,
    bankReference: reference,
    ifscDetails: { bank: upper(ifsc.name), branch: upper(ifsc.branch), city: upper(ifsc.city), state: upper(ifsc.state) },
  };
}

export function createSetuBankProvider(client: UpstreamClient): BankProvider {
  return {
    async verifyAccount(accountNumber, ifsc, options = {}) {
      if (!options.consent) throw new VendorNotApplicable("Setu is called only with the person's consent on record.");
      const request = { method: "POST" as const, path: "/api/verify/ban/pennyless", body: { accountNumber, ifsc }, deadlineAt: options.deadlineAt };
      return client.call(request, (answer) => {
        if (answer.status !== 200) throw unexpectedSetuRefusal(client, answer);
        const check = bankCheckFromSetu(objectBody(answer));
        if (!check) throw unreadableAnswer("no account status");
        return check;
      });
    },
  };
}
