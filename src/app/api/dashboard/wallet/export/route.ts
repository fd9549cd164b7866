import { ledgerFiltersFromQuery } from "@/lib/schemas/wallet";
import { csvExportRoute } from "@/server/http/csv-export";
import { exportLedgerCsv } from "@/server/services/wallet/ledger";

export const dynamic = "force-dynamic";

/** GET ?mode=sandbox|live&type=&from=&to= → the signed-in merchant's wallet ledger as CSV, newest first. */
export const GET = csvExportRoute({ name: "wallet-ledger", filtersFromQuery: ledgerFiltersFromQuery, rows: exportLedgerCsv });
