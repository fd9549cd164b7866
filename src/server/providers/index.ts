import { bulkhead } from "cockatiel";
import { AppError } from "@/server/errors";
import type { Config } from "@/server/config";
import type { Mode } from "@/lib/mode";
import { batchPace } from "@/server/lib/background-pace";
import { log } from "@/server/lib/logger";
import type { AnsweringVendor, PanBulkSource, PanProvider } from "@/server/providers/pan/types";
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
import type { UpstreamLogger, UpstreamVendor } from "@/server/providers/upstream/client";
import { setuClients } from "@/server/providers/setu/client";
import { createSetuPanProvider } from "@/server/providers/setu/pan";
import { createSetuBankProvider } from "@/server/providers/setu/bank";
import { firstAnswer, type FailoverSettings } from "@/server/providers/failover";
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

/** The live settings; a caller that names no family's vendors (tests, tools) has LIVE_VERIFICATION_PROVIDER's for all four. */
export type LiveVerificationSettings = Omit<Config["liveVerification"], "vendors" | "setu" | "firstVendorShare" | "maxRps"> &
  Partial<Pick<Config["liveVerification"], "vendors" | "setu" | "firstVendorShare" | "maxRps">>;

export type VerificationFamily = "pan" | "bank" | "epfo" | "aadhaar";

/** Each family's vendors in the order they are tried. */
export function liveVendorsOf(settings: LiveVerificationSettings): Record<VerificationFamily, UpstreamVendor[]> {
  if (settings.vendors) return settings.vendors;
  const all: UpstreamVendor[] = settings.provider === "none" ? [] : [settings.provider];
  return { pan: all, epfo: all, aadhaar: all, bank: all };
}

/** A vendor's bulk verification whose answered records name the vendor, as the router's single calls do. */
function bulkAnsweredBy(source: PanBulkSource, vendor: AnsweringVendor): PanBulkSource {
  return {
    maxEntries: source.maxEntries,
    minEntries: source.minEntries,
    submit: source.submit.bind(source),
    async status(bulkId, reference) {
      const status = await source.status(bulkId, reference);
      if (status.state !== "ANSWERED") return status;
      return { state: "ANSWERED", entries: status.entries.map((e) => (e.record ? { ...e, record: { ...e.record, vendor } } : e)) };
    },
  };
}

/** PAN checks through the family's vendors in order; the record names the vendor that answered. */
function panRouter(connectors: Partial<Record<UpstreamVendor, PanProvider>>, order: UpstreamVendor[], failover: FailoverSettings): PanProvider {
  const tries = order.map((vendor) => ({ vendor, provider: connectors[vendor]! }));
  // Bulk verification is Cashfree's alone: offered when Cashfree is the preferred vendor; items it
  // leaves unanswered go to single calls, which fail over per item.
  const cashfreeBulk = order[0] === "cashfree" ? connectors.cashfree?.bulk : undefined;
  const bulk = cashfreeBulk && bulkAnsweredBy(cashfreeBulk, "cashfree");
  return {
    ...(bulk ? { bulk } : {}),
    async lookup(pan, options = {}) {
      const { value, vendor } = await firstAnswer(
        "pan",
        tries.map(({ vendor, provider }) => ({ vendor, run: (deadlineAt: number) => provider.lookup(pan, { ...options, deadlineAt }) })),
        failover,
      );
      return { ...value, vendor };
    },
  };
}

function bankRouter(connectors: Partial<Record<UpstreamVendor, BankProvider>>, order: UpstreamVendor[], failover: FailoverSettings): BankProvider {
  const tries = order.map((vendor) => ({ vendor, provider: connectors[vendor]! }));
  return {
    async verifyAccount(accountNumber, ifsc, options = {}) {
      const { value, vendor } = await firstAnswer(
        "bank",
        tries.map(({ vendor, provider }) => ({ vendor, run: (deadlineAt: number) => provider.verifyAccount(accountNumber, ifsc, { ...options, deadlineAt }) })),
        failover,
      );
      return { ...value, vendor };
    },
  };
}

/**
 * The live set: per family, a router over its vendors in order (C6). Each vendor's family has its
 * own breaker, bulkhead (in `tuning.gates`, the server's) and call statistics. EPFO and Aadhaar OTP
 * have one vendor (Cashfree): an Aadhaar OTP is verified by the vendor that sent it.
 */
export function createLiveProviders(settings: LiveVerificationSettings, logger: UpstreamLogger = log, tuning: SecureIdClientTuning = {}): ProviderSet {
  const vendors = liveVendorsOf(settings);
  const named = new Set(Object.values(vendors).flat());
  if (named.size === 0) return { pan: unconfiguredPan, epfo: unconfiguredEpfo, aadhaar: unconfiguredAadhaar, bank: unconfiguredBank, batchLane: directLane };
  const limits = { timeoutMs: settings.timeoutMs, maxConcurrency: settings.maxConcurrency, maxRps: settings.maxRps ?? 0 };
  const cashfree = named.has("cashfree") ? secureIdClients({ ...settings.cashfree, ...limits }, logger, tuning) : null;
  const setu = named.has("setu") && settings.setu ? setuClients({ ...settings.setu, ...limits }, logger, tuning) : null;
  const failover: FailoverSettings = { timeoutMs: settings.timeoutMs, share: settings.firstVendorShare ?? 0.6 };
  const pans: Partial<Record<UpstreamVendor, PanProvider>> = {};
  const banks: Partial<Record<UpstreamVendor, BankProvider>> = {};
  if (cashfree) {
    pans.cashfree = createCashfreePanProvider(cashfree.pan);
    banks.cashfree = createCashfreeBankProvider(cashfree.bank);
  }
  if (setu) {
    pans.setu = createSetuPanProvider(setu.pan);
    banks.setu = createSetuBankProvider(setu.bank);
  }
  return {
    pan: vendors.pan.length > 0 ? panRouter(pans, vendors.pan, failover) : unconfiguredPan,
    bank: vendors.bank.length > 0 ? bankRouter(banks, vendors.bank, failover) : unconfiguredBank,
    epfo: cashfree && vendors.epfo.includes("cashfree") ? createCashfreeEpfoProvider(cashfree.epfo) : unconfiguredEpfo,
    aadhaar: cashfree && vendors.aadhaar.includes("cashfree") ? createCashfreeAadhaarProvider(cashfree.aadhaar) : unconfiguredAadhaar,
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
