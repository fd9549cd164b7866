import type { Db } from "./client";
import { pendingMigrations } from "./migrate";

export type Readiness = "ready" | "migrations pending" | "database unreachable";

/** Readiness: the database answers and every migration is applied (checked until it first is). */
export async function checkReadiness(db: Db, migrationsKnownApplied: boolean): Promise<Readiness> {
  try {
    await db.$queryRawUnsafe("SELECT 1");
    if (migrationsKnownApplied) return "ready";
    return (await pendingMigrations(db)).length === 0 ? "ready" : "migrations pending";
  } catch {
    return "database unreachable";
  }
}
