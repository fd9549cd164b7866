import { paymentFiltersFromQuery } from "@/lib/schemas/payments";
import { csvExportRoute } from "@/server/http/csv-export";
import { exportPaymentsCsv } from "@/server/services/payments/queries";

export const dynamic = "force-dynamic";

/** GET ?mode=sandbox|live&status=&orderId=&from=&to= → the signed-in merchant's payments as CSV, newest first. */
export const GET = csvExportRoute({ name: "payments", filtersFromQuery: paymentFiltersFromQuery, rows: exportPaymentsCsv });
