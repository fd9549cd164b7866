import { dbProvider, Prisma, type DbTx } from "./client";

/** One key space per kind of thing locked, so a number and a merchant never share a lock. */
export const LOCK_SPACES = { aadhaarNumber: 7101, merchantOtpSends: 7102 } as const;
export type LockSpace = (typeof LOCK_SPACES)[keyof typeof LOCK_SPACES];

/**
 * Serialises the transactions that take the same (space, key) until each commits or rolls back,
 * across every app instance: an advisory transaction lock on PostgreSQL. On SQLite it does nothing:
 * a write transaction there holds the database's one write lock from its start (BEGIN IMMEDIATE).
 */
export async function takeScopedLock(tx: DbTx, space: LockSpace, key: string): Promise<void> {
  if (dbProvider(tx) !== "postgresql") return;
  await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(${Prisma.raw(String(space))}, hashtext(${key}))) AS l`;
}
