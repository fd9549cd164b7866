// The work of the recurring maintenance jobs (declared in src/server/jobs/registry.ts). A failure is logged and
// waits for the next period, as a missed purge or sweep is caught up by the next one.
import { log } from "@/server/lib/logger";
import type { AppServices } from "@/server/services";
import { purgeExpiredAuditLogs } from "@/server/services/audit/audit-writer";
import { purgeExpiredBatches } from "@/server/services/batches/batches";
import { purgeOldEmails } from "@/server/services/email/email";
import { purgeExpiredIdempotency } from "@/server/services/idempotency/idempotency";
import { purgeKycData, sweepUnfinishedKyc } from "@/server/services/kyc/maintenance";
import { purgeOldProcessorWebhooks } from "@/server/services/payments/processor-webhooks";
import { requeueStalledRefunds } from "@/server/services/refunds/refunds";
import { purgeSandboxData } from "@/server/services/sandbox-retention";
import { purgeFinishedJobs } from "@/server/jobs/queue";

/** Finished jobs are only history (every payment leaves an expiry job); DEAD ones stay for inspection. */
const FINISHED_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Deletes what is past its retention: request logs, idempotency records, finished jobs, emails, KYC data, batches, processor webhooks, sandbox data. */
export async function purgeRetainedData({ db, config }: AppServices): Promise<void> {
  try {
    const audit = await purgeExpiredAuditLogs(db, config.auditRetentionDays);
    const idem = await purgeExpiredIdempotency(db);
    const jobs = await purgeFinishedJobs(db, new Date(Date.now() - FINISHED_JOB_RETENTION_MS));
    // Reset links in old messages are long dead; the messages themselves are kept 30 days.
    const emails = await purgeOldEmails(db);
    const kyc = await purgeKycData(db);
    const batches = await purgeExpiredBatches(db, config.auditRetentionDays);
    const processorWebhooks = await purgeOldProcessorWebhooks(db, config.auditRetentionDays);
    // Test data is kept a month, not the audit rule's years: a sandbox merchant can store gigabytes an hour.
    const sandbox = await purgeSandboxData(db, config.sandboxRetentionDays);
    const sandboxRows = sandbox.batches + sandbox.verifications + sandbox.auditRecords;
    if (audit || idem || jobs || emails || kyc.results || kyc.otpRequests || batches || processorWebhooks || sandboxRows) {
      log.info("retention purge", {
        auditRecords: audit,
        idempotencyRecords: idem,
        finishedJobs: jobs,
        emails,
        kycResults: kyc.results,
        otpRequests: kyc.otpRequests,
        batches,
        processorWebhooks,
        sandboxBatches: sandbox.batches,
        sandboxVerifications: sandbox.verifications,
        sandboxAuditRecords: sandbox.auditRecords,
      });
    }
  } catch (err) {
    log.warn("retention purge failed", { err });
  }
}

/** Undoes what crashed calls left half-way: wallet holds and OTP claims never settled, refunds whose job was lost. */
export async function sweepUnfinishedWork({ db, atomicWriter }: AppServices): Promise<void> {
  try {
    const swept = await sweepUnfinishedKyc(db, atomicWriter);
    if (swept.holds || swept.otpRequests) log.warn("released unfinished KYC calls", swept);
    const refunds = await requeueStalledRefunds(db);
    if (refunds) log.warn("requeued stalled refunds", { refunds });
  } catch (err) {
    log.warn("KYC and refund sweep failed", { err });
  }
}
