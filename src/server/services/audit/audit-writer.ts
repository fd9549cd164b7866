import type { Db } from "@/server/db/client";
import type { BulkInserter } from "@/server/db/bulk-insert";
import type { VerificationFields } from "@/server/db/verification-columns";
import type { ConsentOnRecord } from "@/server/services/consent/consent";
import { newSortableId } from "@/server/lib/ids";
import { redactString } from "@/server/services/audit/redact";
import { log } from "@/server/lib/logger";

/** A verification row written with the request's audit record (same group commit). */
export interface VerificationRecord extends VerificationFields {
  kind: "PAN" | "EPFO";
  /** The consent the check was made under (C6); a batch's items have theirs on the batch. */
  consent?: ConsentOnRecord;
}

export interface AuditRecord {
  requestId: string;
  merchantId: string | null;
  apiKeyId: string | null;
  mode: string | null;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  clientIp: string;
  userAgent: string | null;
  requestBody: string | null;
  responseBody: string | null;
  errorCode: string | null;
  createdAt: Date;
  verification: VerificationRecord | null;
}

interface Pending {
  record: AuditRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const MAX_BATCH = 400;

const AUDIT_COLUMNS = [
  "id",
  "requestId",
  "merchantId",
  "apiKeyId",
  "mode",
  "method",
  "path",
  "status",
  "latencyMs",
  "clientIp",
  "userAgent",
  "requestBody",
  "responseBody",
  "errorCode",
  "createdAt",
] as const;
const VERIFICATION_COLUMNS = [
  "id",
  "merchantId",
  "mode",
  "kind",
  "requestId",
  "subject",
  "nameQueried",
  "outcome",
  "nameMatch",
  "sourceNameMatch",
  "vendor",
  "errorCode",
  "consent",
  "purpose",
  "consentSource",
  "createdAt",
] as const;

/**
 * Group commit for the audit log: records that arrive while a commit is running go into the next
 * one, so under load many requests share one transaction. `write` resolves only after the record
 * is committed, which is what lets the REST door hold the response until it is durable.
 */
export class AuditWriter {
  private queue: Pending[] = [];
  private flushing = false;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  /** Records in the commit under way. */
  private committing = 0;
  committed = 0;
  commits = 0;
  /** Told of each commit (its records, how long it took, whether it held): the metrics hook in here. */
  onCommit: ((records: number, seconds: number, ok: boolean) => void) | undefined;

  constructor(
    private readonly inserter: BulkInserter,
    private readonly flushMs: number,
  ) {}

  write(record: AuditRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      this.schedule();
    });
  }

  /** Records waiting for their commit: queued, and in the commit under way. */
  get pending(): number {
    return this.queue.length + this.committing;
  }

  private schedule() {
    if (this.flushing || this.timer) return;
    if (this.flushMs <= 0) {
      setImmediate(() => void this.flush());
      this.timer = undefined;
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushMs);
  }

  private async flush() {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MAX_BATCH);
        this.committing = batch.length;
        try {
          await this.commitIsolated(batch);
        } finally {
          this.committing = 0;
        }
      }
    } finally {
      this.flushing = false;
      if (this.queue.length) this.schedule();
      else for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /**
   * Commits a group; when it fails, its halves are committed again, down to single records, so only a
   * record that fails alone fails its request (one unstorable record must not fail the requests it was
   * grouped with). A database that refuses everything is not tried record by record: past a budget
   * of failed commits, enough to find a few bad records, what is left fails at once.
   */
  private async commitIsolated(group: Pending[]) {
    let failuresLeft = 4 * Math.ceil(Math.log2(group.length + 1)) + 4;
    const attempt = async (part: Pending[]): Promise<void> => {
      const started = performance.now();
      try {
        await this.commit(part.map((p) => p.record));
        this.committed += part.length;
        this.commits++;
        this.onCommit?.(part.length, (performance.now() - started) / 1000, true);
        for (const p of part) p.resolve();
        return;
      } catch (err) {
        this.onCommit?.(part.length, (performance.now() - started) / 1000, false);
        failuresLeft--;
        if (part.length === 1 || failuresLeft <= 0) {
          log.error("audit commit failed", { err, records: part.length, requestIds: part.slice(0, 5).map((p) => p.record.requestId) });
          for (const p of part) p.reject(err);
          return;
        }
      }
      const half = part.length >>> 1;
      await attempt(part.slice(0, half));
      await attempt(part.slice(half));
    };
    await attempt(group);
  }

  private async commit(records: AuditRecord[]) {
    const verified = records.filter((r) => r.verification && r.merchantId && r.mode);
    const at = Date.now();
    await this.inserter.insert([
      {
        table: "AuditLog",
        columns: AUDIT_COLUMNS,
        rows: records.map((r) => [
          newSortableId("aud", at),
          r.requestId,
          r.merchantId,
          r.apiKeyId,
          r.mode,
          r.method,
          r.path,
          r.status,
          r.latencyMs,
          r.clientIp,
          r.userAgent,
          r.requestBody,
          r.responseBody,
          r.errorCode,
          r.createdAt,
        ]),
      },
      {
        table: "Verification",
        columns: VERIFICATION_COLUMNS,
        rows: verified.map((r) => {
          const v = r.verification!;
          // The name as sent is kept for the history, but never a card or Aadhaar number typed into it.
          return [
            newSortableId("ver", at),
            r.merchantId,
            r.mode,
            v.kind,
            r.requestId,
            v.subject,
            v.nameQueried === null ? null : redactString(v.nameQueried),
            v.outcome,
            v.nameMatch,
            v.sourceNameMatch ?? null,
            v.vendor ?? null,
            v.errorCode,
            v.consent?.consent ?? null,
            v.consent?.purpose ?? null,
            v.consent?.source ?? null,
            r.createdAt,
          ];
        }),
      },
    ]);
  }

  /** Resolves when everything queued so far is committed (graceful shutdown). */
  async drain(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }
}

/** Deletes audit records older than the retention period, in chunks to keep locks short. */
export async function purgeExpiredAuditLogs(db: Db, retentionDays: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  let total = 0;
  for (;;) {
    const old = await db.auditLog.findMany({ where: { createdAt: { lt: cutoff } }, select: { id: true }, take: 1000 });
    if (old.length === 0) break;
    const res = await db.auditLog.deleteMany({ where: { id: { in: old.map((o) => o.id) } } });
    total += res.count;
  }
  return total;
}
