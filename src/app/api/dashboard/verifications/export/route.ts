import { verificationFiltersFromQuery } from "@/lib/schemas/verifications";
import { csvExportRoute } from "@/server/http/csv-export";
import { exportVerificationsCsv } from "@/server/services/identity/verifications";

export const dynamic = "force-dynamic";

/** GET ?mode=sandbox|live&kind=&subject= → the signed-in merchant's PAN and EPFO checks as CSV, newest first, with consent and purpose. */
export const GET = csvExportRoute({ name: "verifications", filtersFromQuery: (q) => verificationFiltersFromQuery(q), rows: exportVerificationsCsv });
