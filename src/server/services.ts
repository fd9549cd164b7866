import { getConfig, type Config } from "@/server/config";
import { createAtomicWriter, type AtomicWriter } from "@/server/db/atomic-write";
import { createBulkInserter, type BulkInserter } from "@/server/db/bulk-insert";
import { createPrismaClient, type Db } from "@/server/db/client";
import { createBatchStore, type BatchStore } from "@/server/db/batch-store";
import { createProviders, type ProviderSet } from "@/server/providers";
import { log } from "@/server/lib/logger";
import { createCashfreeProcessor } from "@/server/providers/payments/cashfree";
import { sandboxProcessor, unconfiguredProcessor } from "@/server/providers/payments/sandbox";
import type { PaymentProcessor } from "@/server/providers/payments/types";
import type { UpstreamGates } from "@/server/providers/upstream/gate";
import type { Mode } from "@/lib/mode";
import { AuditWriter } from "@/server/services/audit/audit-writer";
import { AuthCache } from "@/server/services/auth/auth-cache";
import { chunkLeases } from "@/server/services/batches/batch-worker";
import { ChunkThread } from "@/server/services/batches/chunk-thread";
import { FailedAuthLimiter } from "@/server/services/auth/failed-auth-limiter";
import { sharedLimits } from "@/server/services/limits/shared";
import { RateLimiter } from "@/server/services/rate-limiter";

export interface AppServices {
  config: Config;
  db: Db;
  authCache: AuthCache;
  auditWriter: AuditWriter;
  rateLimiter: RateLimiter;
  /** Refused credentials per client address: past the limit, 429 instead of 401. */
  failedAuthLimiter: FailedAuthLimiter;
  /** Direct multi-table inserts for hot paths (audit log, payment creation). */
  bulk: BulkInserter;
  /** Atomic writes on hot rows: the holds and captures of charged calls (KYC fees) on the wallet's row. */
  atomicWriter: AtomicWriter;
  /** Chunk commits of batches: results, counters and verification rows in one transaction. */
  batchStore: BatchStore;
  /** Where chunks of sandbox batches run their items, off the event loop (started on first use). */
  batchChunkThread: ChunkThread;
  providers: Record<Mode, ProviderSet>;
  paymentProcessors: Record<Mode, PaymentProcessor>;
}

// Next bundles its own copy of server modules; the process-wide instance lives on globalThis so the
// REST door, the dashboard and the CLI share one database client and cache.
const KEY = Symbol.for("parakh.services");
type Holder = { [KEY]?: AppServices };

export function getServices(): AppServices {
  const holder = globalThis as Holder;
  holder[KEY] ??= createServices(getConfig());
  return holder[KEY];
}

/** A set of services on the configured database (getServices keeps the process's one set). */
export function createServices(config: Config): AppServices {
  const db = createPrismaClient(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
  const bulk = createBulkInserter(db, config.databaseUrl, config.sqliteSynchronous);
  return {
    config,
    db,
    authCache: new AuthCache(db, config.authCachePollMs),
    auditWriter: new AuditWriter(bulk, config.auditFlushMs),
    bulk,
    atomicWriter: createAtomicWriter(db, config.databaseUrl, config.sqliteSynchronous),
    batchStore: createBatchStore(db, config.databaseUrl, chunkLeases(db), config.sqliteSynchronous),
    batchChunkThread: new ChunkThread(),
    // Both count in the process's limit store: with several workers, the primary's.
    rateLimiter: new RateLimiter(config.rateLimitPerSecond, sharedLimits()),
    failedAuthLimiter: new FailedAuthLimiter(config.authFailuresPerMinute, 60_000, sharedLimits()),
    // Each live family's bulkhead and breaker hold for the whole server: kept in the same store.
    providers: createProviders(config, sharedLimits()),
    paymentProcessors: { sandbox: sandboxProcessor, live: createLivePaymentProcessor(config, sharedLimits()) },
  };
}

/** Live payments and refunds answer 503 until LIVE_PAYMENT_PROVIDER names a processor. */
export function createLivePaymentProcessor(config: Config, gates?: UpstreamGates): PaymentProcessor {
  const live = config.livePayments;
  if (live.provider !== "cashfree") return unconfiguredProcessor;
  return createCashfreeProcessor({
    settings: { ...live.cashfree, timeoutMs: live.timeoutMs, maxConcurrency: live.maxConcurrency, maxRps: live.maxRps },
    appUrl: config.appUrl,
    checkoutUrl: config.checkoutUrl,
    logger: log,
    tuning: { gates },
  });
}
