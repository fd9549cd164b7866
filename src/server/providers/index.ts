import { AppError } from "@/server/errors";
import type { Config } from "@/server/config";
import type { Mode } from "@/lib/mode";
import type { PanProvider } from "@/server/providers/pan/types";
import type { EpfoProvider } from "@/server/providers/epfo/types";
import { sandboxPanProvider } from "@/server/providers/pan/sandbox";
import { sandboxEpfoProvider } from "@/server/providers/epfo/sandbox";
import type { AadhaarProvider } from "@/server/providers/aadhaar/types";
import type { BankProvider } from "@/server/providers/bank/types";
import { sandboxAadhaarProvider } from "@/server/providers/aadhaar/sandbox";
import { sandboxBankProvider } from "@/server/providers/bank/sandbox";

export interface ProviderSet {
  pan: PanProvider;
  epfo: EpfoProvider;
  aadhaar: AadhaarProvider;
  bank: BankProvider;
}

/** Live mode until an upstream adapter is configured: every call is a source failure, never a fake answer. */
const unconfigured = (): never => {
  throw new AppError("SOURCE_UNAVAILABLE", "No live verification source is configured yet.", { retryAfterSeconds: 300 });
};

const unconfiguredPan: PanProvider = { lookup: async () => unconfigured() };
const unconfiguredEpfo: EpfoProvider = { byUan: async () => unconfigured(), byPfNumber: async () => unconfigured() };
const unconfiguredAadhaar: AadhaarProvider = { sendOtp: async () => unconfigured(), submitOtp: async () => unconfigured() };
const unconfiguredBank: BankProvider = { verifyAccount: async () => unconfigured() };

export function createProviders(_config: Config): Record<Mode, ProviderSet> {
  return {
    sandbox: { pan: sandboxPanProvider, epfo: sandboxEpfoProvider, aadhaar: sandboxAadhaarProvider, bank: sandboxBankProvider },
    live: { pan: unconfiguredPan, epfo: unconfiguredEpfo, aadhaar: unconfiguredAadhaar, bank: unconfiguredBank },
  };
}
