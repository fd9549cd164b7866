import { kycFiltersFromQuery } from "@/lib/schemas/kyc-transactions";
import { csvExportRoute } from "@/server/http/csv-export";
import { exportKycCsv } from "@/server/services/kyc/transactions";

export const dynamic = "force-dynamic";

/** GET ?mode=sandbox|live&kind=&outcome=&from=&to= → the signed-in merchant's KYC transactions as CSV (masked), newest first, with consent and purpose. */
export const GET = csvExportRoute({ name: "kyc-transactions", filtersFromQuery: kycFiltersFromQuery, rows: exportKycCsv });
