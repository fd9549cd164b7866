import { getToken } from "next-auth/jwt";
import type { NextRequest } from "next/server";
import { MODES, type Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { getConfig } from "@/server/config";
import { AppError, isAppError } from "@/server/errors";
import { errorResponse } from "@/server/http/error-response";
import { istDate } from "@/server/lib/ist";
import { log } from "@/server/lib/logger";
import { getServices } from "@/server/services";
import { resolveMerchantContext, SESSION_ENDED_MESSAGE } from "@/server/services/accounts/sessions";
import { requireLiveEnabled } from "@/server/services/merchants/live-mode";

export interface CsvExport<F> {
  /** For log lines and the file name, e.g. "payments" or "wallet-ledger". */
  name: string;
  filtersFromQuery: (q: URLSearchParams) => { filters: F; errors: Record<string, string> };
  rows: (db: Db, merchantId: string, mode: Mode, filters: F) => AsyncGenerator<string, void, undefined>;
}

/**
 * A dashboard CSV download: the signed-in merchant's rows of one mode, filtered like the page, streamed
 * in batches so a large export never sits in memory. GET ?mode=sandbox|live&<the page's filters>.
 */
export function csvExportRoute<F>(spec: CsvExport<F>) {
  return async function GET(req: NextRequest): Promise<Response> {
    const requestId = req.headers.get("x-request-id") ?? undefined;
    try {
      const token = await getToken({ req, secret: getConfig().secrets.nextAuthSecret });
      const session = token?.sub ? { id: token.sub, role: token.role ?? "", sessionVersion: token.sv } : null;
      // A revoked session (sign out everywhere, password change) must not export anything.
      const resolved = await resolveMerchantContext(getServices().db, session);
      if (!resolved.ok) throw new AppError("UNAUTHORIZED", resolved.refusal === "SESSION_ENDED" ? SESSION_ENDED_MESSAGE : "Please sign in.");
      const { merchantId, liveEnabled } = resolved.context;
      const q = req.nextUrl.searchParams;
      const mode = q.get("mode") ?? "sandbox";
      if (!(MODES as readonly string[]).includes(mode)) throw new AppError("VALIDATION_ERROR", "mode must be sandbox or live.", { field: "mode" });
      const { filters, errors } = spec.filtersFromQuery(q);
      const details = Object.entries(errors).map(([field, message]) => ({ field, message }));
      if (details.length) throw new AppError("VALIDATION_ERROR", `Invalid filters: ${details.map((d) => `${d.field}: ${d.message}`).join("; ")}`, { details });
      requireLiveEnabled(mode as Mode, liveEnabled);

      const chunks = spec.rows(getServices().db, merchantId, mode as Mode, filters);
      // The first chunk is read before answering: a refusal there (an unknown batch id) is an error
      // response with its status, not a 200 whose download breaks off.
      let first: IteratorResult<string, void> | null = await chunks.next();
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const next = first ?? (await chunks.next());
            first = null;
            if (next.done) controller.close();
            else controller.enqueue(encoder.encode(next.value));
          } catch (err) {
            log.error(`${spec.name} export failed`, { merchantId, err });
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
          "Content-Disposition": `attachment; filename="${spec.name}-${mode}-${istDate(new Date())}.csv"`,
          "Cache-Control": "no-store",
          "X-Content-Type-Options": "nosniff",
        },
      });
    } catch (err) {
      if (isAppError(err)) return errorResponse(err, requestId);
      log.error(`${spec.name} export failed`, { err });
      return errorResponse("INTERNAL_ERROR", requestId);
    }
  };
}
