import { maskAccountNumber } from "@/lib/kyc";
import type { BankProvider } from "@/server/providers/bank/types";
import { runChargedKyc, vendorOptionsOf, withSourceTimeout, type KycCaller, type KycVault } from "@/server/services/kyc/charge";
import { nameMatchOf } from "@/server/services/kyc/pan-kyc";

/** Bank account KYC: a penny-drop style check with the branch's IFSC details. Every account status is an answer, and charged. */
export async function bankKyc(vault: KycVault, provider: BankProvider, caller: KycCaller, input: { accountNumber: string; ifsc: string; name: string | null }) {
  return runChargedKyc(vault, caller, "BANK", async () => {
    const check = await withSourceTimeout(provider.verifyAccount(input.accountNumber, input.ifsc, vendorOptionsOf(caller)));
    // Who holds an account is not known from its number: a name with a legal form (PVT LTD, LLP) is a
    // business's, scored as a business PAN's is; a personal name has none, so it scores as before.
    const nameMatch = nameMatchOf(input.name, check.nameAtBank, "UNKNOWN");
    return {
      data: {
        accountExists: check.accountExists,
        accountStatus: check.accountStatus,
        nameAtBank: check.nameAtBank,
        nameMatch,
        ifscDetails: check.ifscDetails,
        bankReference: check.bankReference,
      },
      summary: {
        kind: "BANK",
        subjectMasked: `${maskAccountNumber(input.accountNumber)} @ ${input.ifsc}`,
        outcome: check.accountStatus,
        nameMatchScore: nameMatch?.score ?? null,
        vendor: check.vendor ?? null,
      },
    };
  });
}
