import type { NextRequest } from "next/server";
import { batchIdSchema } from "@/lib/schemas/batches";
import { csvExportRoute } from "@/server/http/csv-export";
import { exportBatchResultsCsv } from "@/server/services/batches/dashboard";

export const dynamic = "force-dynamic";

/**
 * GET ?mode=sandbox|live → one of the signed-in merchant's batches, every item with its outcome, as
 * CSV in index order (404 BATCH_NOT_FOUND for anyone else's batch). Items still running are PENDING.
 */
export async function GET(req: NextRequest, { params }: { params: Promise<{ batchId: string }> }): Promise<Response> {
  const parsed = batchIdSchema.safeParse((await params).batchId);
  const batchId = parsed.success ? parsed.data : "";
  const errors: Record<string, string> = parsed.success ? {} : { batchId: parsed.error.issues[0]!.message };
  return csvExportRoute({
    // The id is only letters, digits, _ and - once valid: safe in the file name.
    name: parsed.success ? `${batchId}-results` : "batch-results",
    filtersFromQuery: () => ({ filters: { batchId }, errors }),
    rows: (db, merchantId, mode, f) => exportBatchResultsCsv(db, merchantId, mode, f.batchId),
  })(req);
}
