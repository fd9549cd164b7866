import type { Db, DbTx } from "./client";
import { dbProvider } from "./client";

/**
 * A Prisma filter for text columns holding `run`, ignoring the case of ASCII letters at least: on
 * SQLite LIKE already does (and no more), PostgreSQL needs ILIKE (which folds other letters too). A
 * narrowing: the caller checks each row it gets for the exact rule it wants.
 */
export function containsIgnoringAsciiCase(db: Db | DbTx, run: string): { contains: string; mode?: "insensitive" } {
  return dbProvider(db) === "postgresql" ? { contains: run, mode: "insensitive" } : { contains: run };
}
