import { getToken } from "next-auth/jwt";
import type { NextRequest } from "next/server";
import { MODES, type Mode } from "@/lib/mode";
import { ledgerFiltersFromQuery } from "@/lib/schemas/wallet";
import { getConfig } from "@/server/config";
import { AppError } from "@/server/errors";
import { errorResponse } from "@/server/http/error-response";
import { istDate } from "@/server/lib/ist";
import { log } from "@/server/lib/logger";
import { getServices } from "@/server/services";
import { currentMerchant } from "@/server/services/accounts/sessions";
import { requireLiveEnabled } from "@/server/services/merchants/live-mode";
import { exportLedgerCsv } from "@/server/services/wallet/ledger";

export const dynamic = "force-dynamic";

/** GET ?mode=sandbox|live&type=&from=&to= → the signed-in merchant's wallet ledger as CSV, newest first. */
export async function GET(req: NextRequest) {
  const requestId = req.headers.get("x-request-id") ?? undefined;
  try {
    const token = await getToken({ req, secret: getConfig().secrets.nextAuthSecret });
    if (!token?.sub || token.role !== "merchant") throw new AppError("UNAUTHORIZED", "Please sign in.");
    const merchantId = token.sub;
    const db = getServices().db;
    // A revoked session (sign out everywhere, password change) must not export anything.
    const merchant = await currentMerchant(db, merchantId, token.sv);
    if (!merchant) throw new AppError("UNAUTHORIZED", "Your session has ended. Please sign in again.");
    const q = req.nextUrl.searchParams;
    const mode = q.get("mode") ?? "sandbox";
    if (!(MODES as readonly string[]).includes(mode)) throw new AppError("VALIDATION_ERROR", "mode must be sandbox or live.", { field: "mode" });
    const { filters, errors } = ledgerFiltersFromQuery(q);
    const details = Object.entries(errors).map(([field, message]) => ({ field, message }));
    if (details.length) throw new AppError("VALIDATION_ERROR", `Invalid filters: ${details.map((d) => `${d.field}: ${d.message}`).join("; ")}`, { details });
    requireLiveEnabled(mode as Mode, merchant.liveEnabled);

    const chunks = exportLedgerCsv(db, merchantId, mode as Mode, filters);
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (err) {
          log.error("wallet ledger export failed", { merchantId, err });
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    return new Response(stream, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="wallet-ledger-${mode}-${istDate(new Date())}.csv"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  } catch (err) {
    if (err instanceof AppError) return errorResponse(err, requestId);
    log.error("wallet ledger export failed", { err });
    return errorResponse("INTERNAL_ERROR", requestId);
  }
}
