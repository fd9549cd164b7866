import type { Db } from "@/server/db/client";

/** Due jobs read per look: a backlog past it is reported as this many (a floor), so a look stays cheap. */
export const DUE_JOBS_COUNTED = 5_000;

export interface DueJobs {
  type: string;
  /** Jobs waiting for a worker (queued and due), up to DUE_JOBS_COUNTED over all types. */
  due: number;
  /** When the longest-waiting of them became due. */
  oldestDueAt: Date;
}

/**
 * The queue's backlog per job type: queued jobs whose time has come, oldest first. Jobs booked for
 * later (a payment's expiry) are not waiting and are not read; the read walks the status-and-time
 * index and stops after DUE_JOBS_COUNTED rows, however large the backlog.
 */
export async function dueJobsByType(db: Db, now = new Date()): Promise<DueJobs[]> {
  const rows = await db.job.findMany({
    where: { status: "QUEUED", runAt: { lte: now } },
    orderBy: { runAt: "asc" },
    select: { type: true, runAt: true },
    take: DUE_JOBS_COUNTED,
  });
  const byType = new Map<string, DueJobs>();
  for (const row of rows) {
    const seen = byType.get(row.type);
    if (seen) seen.due++;
    else byType.set(row.type, { type: row.type, due: 1, oldestDueAt: row.runAt });
  }
  return [...byType.values()];
}
