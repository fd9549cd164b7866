import { AppError } from "@/server/errors";

/**
 * Keyset pagination for every list: rows newest first by (createdAt, id). The cursor names the last
 * row shown, so rows inserted meanwhile never shift a page (no duplicates, no gaps) and ties on
 * createdAt stay ordered.
 */
export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(row: Cursor): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): Cursor {
  const [iso, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const createdAt = new Date(iso ?? "");
  if (!id || rest.length || Number.isNaN(createdAt.getTime()))
    throw new AppError("VALIDATION_ERROR", "This page link has expired; reload the list.", { field: "cursor" });
  return { createdAt, id };
}

/** A where-fragment: rows after the cursor in (createdAt desc, id desc) order. */
export function afterCursor(cursor: string | undefined) {
  if (!cursor) return {};
  const c = decodeCursor(cursor);
  return { OR: [{ createdAt: { lt: c.createdAt } }, { createdAt: c.createdAt, id: { lt: c.id } }] };
}

export const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];

/** One page from `limit + 1` fetched rows. */
export function toPage<T extends Cursor>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { rows: page, nextCursor: more ? encodeCursor(page[page.length - 1]!) : null };
}
