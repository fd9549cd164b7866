// Kept apart from ./batch-store.ts so the batch chunk threads can build rows without loading a database client.

/** A check's own columns of the merchant's verification history, whether a single call or a batch item made it. */
export interface VerificationFields {
  subject: string;
  nameQueried: string | null;
  outcome: string;
  nameMatch: number | null;
  /** The live source's own name score, for operators (PAN only); absent or null otherwise. */
  sourceNameMatch?: number | null;
  /** The live vendor that answered (C6), for operators; absent or null in sandbox and when none answered. */
  vendor?: string | null;
  errorCode: string | null;
}

/** One batch item's own columns of the merchant's verification history. */
export interface BatchVerificationRow extends VerificationFields {
  id: string;
}

/**
 * Rows' own columns, one array per column, the k-th entries making the k-th row: a chunk's thousand
 * rows cross from the chunk thread for a quarter of what as many objects cost, and PostgreSQL's
 * unnest takes the arrays as they are.
 */
export interface BatchVerificationColumns {
  id: string[];
  subject: string[];
  nameQueried: (string | null)[];
  outcome: string[];
  nameMatch: (number | null)[];
  sourceNameMatch: (number | null)[];
  vendor: (string | null)[];
  errorCode: (string | null)[];
}

/** Rows as columns. */
export function verificationColumns(rows: BatchVerificationRow[]): BatchVerificationColumns {
  return {
    id: rows.map((r) => r.id),
    subject: rows.map((r) => r.subject),
    nameQueried: rows.map((r) => r.nameQueried),
    outcome: rows.map((r) => r.outcome),
    nameMatch: rows.map((r) => r.nameMatch),
    sourceNameMatch: rows.map((r) => r.sourceNameMatch ?? null),
    vendor: rows.map((r) => r.vendor ?? null),
    errorCode: rows.map((r) => r.errorCode),
  };
}
