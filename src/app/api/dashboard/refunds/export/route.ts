import { refundFiltersFromQuery } from "@/lib/schemas/refunds";
import { csvExportRoute } from "@/server/http/csv-export";
import { exportRefundsCsv } from "@/server/services/refunds/dashboard";

export const dynamic = "force-dynamic";

/** GET ?mode=sandbox|live&status=&q=&from=&to= → the signed-in merchant's refunds as CSV, newest first. */
export const GET = csvExportRoute({ name: "refunds", filtersFromQuery: refundFiltersFromQuery, rows: exportRefundsCsv });
