import { getToken } from "next-auth/jwt";
import type { NextRequest } from "next/server";
import { paymentFiltersFromQuery } from "@/lib/schemas/payments";
import { afterCursor, encodeCursor, istDate, newestFirst } from "@/server/api/dashboard/logs";
import { PAYMENT_CSV_COLUMNS, csvLine, paymentCsvLine, paymentFilterWhere } from "@/server/api/dashboard/payments";
import { currentMerchant } from "@/server/auth/session-state";
import { getConfig } from "@/server/config";
import { log } from "@/server/lib/logger";
import { getServices } from "@/server/services";

export const dynamic = "force-dynamic";

/** Rows read per database round trip while streaming. */
const BATCH = 500;

function plain(status: number, message: string) {
  return new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

/** GET ?mode=sandbox|live&status=&orderId=&from=&to= → the signed-in merchant's payments as CSV, newest first. */
export async function GET(req: NextRequest) {
  const token = await getToken({ req, secret: getConfig().secrets.nextAuthSecret });
  if (!token?.sub || token.role !== "merchant") return plain(401, "Please sign in.");
  const merchantId = token.sub;
  const db = getServices().db;
  // A revoked session (sign out everywhere, password change) must not export anything.
  const merchant = await currentMerchant(db, merchantId, token.sv);
  if (!merchant) return plain(401, "Your session has ended. Please sign in again.");
  const q = req.nextUrl.searchParams;
  const mode = q.get("mode") ?? "sandbox";
  if (mode !== "sandbox" && mode !== "live") return plain(400, "mode must be sandbox or live.");
  const { filters, errors } = paymentFiltersFromQuery(q);
  if (Object.keys(errors).length) return plain(400, `Invalid filters: ${Object.entries(errors).map(([k, v]) => `${k}: ${v}`).join("; ")}`);
  if (mode === "live" && !merchant.liveEnabled) return plain(403, "Live mode is not enabled for this account yet.");
  const where = { merchantId, mode, ...paymentFilterWhere(filters) };
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  let done = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!started) {
          started = true;
          // The BOM makes spreadsheet apps read the file as UTF-8 (customer names, ₹ in descriptions).
          controller.enqueue(encoder.encode(`\uFEFF${csvLine([...PAYMENT_CSV_COLUMNS])}`));
          return;
        }
        if (done) return controller.close();
        const rows = await db.payment.findMany({ where: { ...where, AND: [afterCursor(cursor)] }, orderBy: newestFirst, take: BATCH });
        if (rows.length < BATCH) done = true;
        if (rows.length === 0) return controller.close();
        cursor = encodeCursor(rows[rows.length - 1]!);
        controller.enqueue(encoder.encode(rows.map(paymentCsvLine).join("")));
      } catch (err) {
        log.error("payments export failed", { merchantId, err });
        controller.error(err);
      }
    },
  });
  const name = `payments-${mode}-${istDate(new Date())}.csv`;
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
