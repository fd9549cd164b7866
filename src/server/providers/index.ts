import { bulkhead } from "cockatiel";
import { AppError } from "@/server/errors";
import type { Config } from "@/server/config";
import type { Mode } from "@/lib/mode";
import { batchPace } from "@/server/lib/background-pace";
import { log } from "@/server/lib/logger";
import type { PanProvider } from "@/server/providers/pan/types";
import type { EpfoProvider } from "@/server/providers/epfo/types";
import { sandboxPanProvider } from "@/server/providers/sandbox/pan";
import { sandboxEpfoProvider } from "@/server/providers/sandbox/epfo";
import type { AadhaarProvider } from "@/server/providers/aadhaar/types";
import type { BankProvider } from "@/server/providers/bank/types";
import { sandboxAadhaarProvider } from "@/server/providers/sandbox/aadhaar";
import { sandboxBankProvider } from "@/server/providers/sandbox/bank";
import { secureIdClients, type SecureIdClientTuning } from "@/server/providers/cashfree/secure-id";
import { createCashfreePanProvider } from "@/server/providers/cashfree/pan";
import { createCashfreeEpfoProvider } from "@/server/providers/cashfree/epfo";
import { createCashfreeAadhaarProvider } from "@/server/providers/cashfree/aadhaar";
import { createCashfreeBankProvider } from "@/server/providers/cashfree/bank";
import type { UpstreamLogger } from "@/server/providers/upstream/client";
import type { UpstreamGates } from "@/server/providers/upstream/gate";

export interface ProviderSet {
  pan: PanProvider;
  epfo: EpfoProvider;
  aadhaar: AadhaarProvider;
  bank: BankProvider;
  /**
   * Where batch items call the source: live batches wait here for one of half the family's upstream
   * slots, so a batch neither fails items on a full bulkhead nor takes the slots single calls need.
   */
  batchLane: BatchLane;
}

export type BatchLane = <T>(family: "pan" | "epfo", call: () => Promise<T>) => Promise<T>;

/**
 * Sandbox batches call fixtures: nothing to wait for but the event loop. Every batch item, of either
 * lane, first takes its turn there, so single calls are read between a few milliseconds of items.
 */
const directLane: BatchLane = async (_family, call) => {
  await batchPace.turn();
  return call();
};

/** Batch items queue (bounded by the batch workers' own concurrency) for half of each family's slots. */
function upstreamBatchLane(maxConcurrency: number): BatchLane {
  const half = Math.max(1, Math.floor(maxConcurrency / 2));
  const lanes = { pan: bulkhead(half, Infinity), epfo: bulkhead(half, Infinity) };
  return async (family, call) => {
    await batchPace.turn();
    return lanes[family].execute(call);
  };
}

/** Live mode without a chosen vendor: every call is a source failure, never a fake answer. */
const unconfigured = (): never => {
  throw new AppError("SOURCE_UNAVAILABLE", "No live verification source is configured yet.", { retryAfterSeconds: 300 });
};

const unconfiguredPan: PanProvider = { lookup: async () => unconfigured() };
const unconfiguredEpfo: EpfoProvider = { byUan: async () => unconfigured(), byPfNumber: async () => unconfigured() };
const unconfiguredAadhaar: AadhaarProvider = { sendOtp: async () => unconfigured(), submitOtp: async () => unconfigured() };
const unconfiguredBank: BankProvider = { verifyAccount: async () => unconfigured() };

/** The live set for the chosen vendor; each family gets its own breaker, bulkhead (in `tuning.gates`, the server's) and call statistics. */
export function createLiveProviders(settings: Config["liveVerification"], logger: UpstreamLogger = log, tuning: SecureIdClientTuning = {}): ProviderSet {
  if (settings.provider === "none")
    return { pan: unconfiguredPan, epfo: unconfiguredEpfo, aadhaar: unconfiguredAadhaar, bank: unconfiguredBank, batchLane: directLane };
  const clients = secureIdClients({ ...settings.cashfree, timeoutMs: settings.timeoutMs, maxConcurrency: settings.maxConcurrency }, logger, tuning);
  return {
    pan: createCashfreePanProvider(clients.pan),
    epfo: createCashfreeEpfoProvider(clients.epfo),
    aadhaar: createCashfreeAadhaarProvider(clients.aadhaar),
    bank: createCashfreeBankProvider(clients.bank),
    batchLane: upstreamBatchLane(settings.maxConcurrency),
  };
}

/** The deterministic fixtures of sandbox mode. */
export const sandboxProviders: ProviderSet = {
  pan: sandboxPanProvider,
  epfo: sandboxEpfoProvider,
  aadhaar: sandboxAadhaarProvider,
  bank: sandboxBankProvider,
  batchLane: directLane,
};

/** `gates`: where the live families' bulkheads and breakers are kept (the server's shared store). */
export function createProviders(config: Config, gates?: UpstreamGates): Record<Mode, ProviderSet> {
  return { sandbox: sandboxProviders, live: createLiveProviders(config.liveVerification, log, { gates }) };
}
