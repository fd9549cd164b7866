import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { decrypt } from "@/server/lib/crypto";
import { isoOrNull } from "@/server/lib/dates";
import { istDayRange } from "@/server/lib/ist";
import { log } from "@/server/lib/logger";
import { afterCursor, encodeCursor, newestFirst, toPage } from "@/server/lib/pagination";
import { CSV_BOM, csvLine } from "@/server/lib/csv";
import { CONSENT_CSV_COLUMNS } from "@/lib/consent";
import type { Mode } from "@/lib/mode";
import { formatPaise, formatRupees, parseAmountToPaise } from "@/lib/money";
import type { KycKind } from "@/lib/kyc";
import { chargeFields } from "@/server/services/kyc/charge";
import type { KycFilters } from "@/lib/schemas/kyc-transactions";

/**
 * The merchant's charged KYC calls for the dashboard. The list and the detail carry only the masked
 * summary; the stored full answer (photo and address included) is decrypted only by readKycResult,
 * which the page calls when the merchant asks for it.
 */

function kycFilterWhere(f: KycFilters) {
  return { ...(f.kind ? { kind: f.kind } : {}), ...(f.outcome ? { outcome: f.outcome } : {}), ...istDayRange(f.from, f.to) };
}

/** The mode's KYC transactions, newest first; by kind, outcome and IST dates. */
export async function listKycTransactions(db: Db, merchantId: string, mode: Mode, input: KycFilters & { cursor?: string; limit: number }) {
  const rows = await db.kycTransaction.findMany({
    where: { merchantId, mode, ...kycFilterWhere(input), AND: [afterCursor(input.cursor)] },
    orderBy: newestFirst,
    take: input.limit + 1,
    select: { id: true, kind: true, subjectMasked: true, outcome: true, nameMatchScore: true, feePaise: true, reversedAt: true, createdAt: true },
  });
  const { rows: page, nextCursor } = toPage(rows, input.limit);
  return {
    items: page.map((t) => ({
      id: t.id,
      kind: t.kind as KycKind,
      subjectMasked: t.subjectMasked,
      outcome: t.outcome,
      nameMatchScore: t.nameMatchScore,
      feePaise: t.feePaise,
      /** Set when the fee was given back (the answer could not be recorded, so it was never sent). */
      reversedAt: isoOrNull(t.reversedAt),
      createdAt: t.createdAt.toISOString(),
    })),
    nextCursor,
  };
}

/** Another merchant's or mode's transaction answers as an unknown id does. */
async function findOwn(db: Db, merchantId: string, mode: Mode, id: string) {
  const t = await db.kycTransaction.findFirst({ where: { id, merchantId, mode } });
  if (!t) throw new AppError("NOT_FOUND", "No KYC transaction with this id.");
  return t;
}

/** One transaction's masked summary, its charge and ledger entry, and whether its full result is still kept. */
export async function getKycTransaction(db: Db, merchantId: string, mode: Mode, id: string, retentionDays: number) {
  const t = await findOwn(db, merchantId, mode, id);
  const entry = await db.ledgerEntry.findFirst({
    where: { id: t.ledgerEntryId, merchantId, mode },
    select: { id: true, amountPaise: true, balanceAfterPaise: true, reason: true, createdAt: true },
  });
  return {
    id: t.id,
    mode: t.mode as Mode,
    kind: t.kind as KycKind,
    subjectMasked: t.subjectMasked,
    outcome: t.outcome,
    nameMatchScore: t.nameMatchScore,
    feePaise: t.feePaise,
    balanceAfterPaise: t.balanceAfterPaise,
    requestId: t.requestId || null,
    otpRequestId: t.otpRequestId,
    ledgerEntry: entry ? { ...entry, createdAt: entry.createdAt.toISOString() } : null,
    reversedAt: isoOrNull(t.reversedAt),
    createdAt: t.createdAt.toISOString(),
    result: { retained: t.resultEnc !== null, expiresAt: isoOrNull(t.resultExpiresAt), retentionDays },
    consent: { consent: t.consent, purpose: t.purpose, source: t.consentSource as "request" | "standing" | null },
  };
}

export const KYC_CSV_COLUMNS = [
  ...["kyc_transaction_id", "created_at", "kind", "subject_masked", "outcome", "name_match_score", "fee", "currency", "request_id", "reversed_at"],
  ...CONSENT_CSV_COLUMNS,
  "mode",
] as const;

const EXPORT_BATCH = 500;

/** The mode's KYC transactions as CSV, filtered like the page, newest first: masked, with each call's consent and purpose. */
export async function* exportKycCsv(db: Db, merchantId: string, mode: Mode, filters: KycFilters): AsyncGenerator<string> {
  yield `${CSV_BOM}${csvLine([...KYC_CSV_COLUMNS])}`;
  const where = { merchantId, mode, ...kycFilterWhere(filters) };
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.kycTransaction.findMany({ where: { ...where, AND: [afterCursor(cursor)] }, orderBy: newestFirst, take: EXPORT_BATCH });
    if (rows.length === 0) return;
    yield rows
      .map((t) =>
        csvLine([
          t.id,
          t.createdAt.toISOString(),
          t.kind,
          t.subjectMasked,
          t.outcome,
          t.nameMatchScore === null ? null : t.nameMatchScore.toFixed(2),
          formatPaise(t.feePaise),
          "INR",
          t.requestId || null,
          isoOrNull(t.reversedAt),
          t.consent === null ? null : String(t.consent),
          t.purpose,
          t.consentSource,
          mode,
        ]),
      )
      .join("");
    if (rows.length < EXPORT_BATCH) return;
    cursor = encodeCursor(rows[rows.length - 1]!);
  }
}

type Fact = { label: string; value: string };
type Stored = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);
const rupees = (v: unknown): string | null => {
  const paise = parseAmountToPaise(v);
  return paise === null ? null : formatRupees(paise);
};
const yesNo = (v: unknown): string | null => (v === true ? "Yes" : v === false ? "No" : null);

function nameMatchText(v: unknown): string | null {
  const m = v as { score?: unknown; result?: unknown } | null;
  if (!m || typeof m.score !== "number") return null;
  return `${m.score.toFixed(2)} (${String(m.result ?? "")
    .replace(/_/g, " ")
    .toLowerCase()})`;
}

const GENDERS: Record<string, string> = { M: "Male", F: "Female", T: "Transgender" };

const ADDRESS_PARTS: [string, string][] = [
  ["house", "House"],
  ["street", "Street"],
  ["landmark", "Landmark"],
  ["locality", "Locality"],
  ["vtc", "Village, town or city"],
  ["postOffice", "Post office"],
  ["subDistrict", "Sub-district"],
  ["district", "District"],
  ["state", "State"],
  ["country", "Country"],
  ["pincode", "PIN code"],
];

/** The stored answer as labelled facts, with the Aadhaar photo and address apart. */
function shapeResult(kind: KycKind, a: Stored) {
  const facts: [string, string | null][] = [];
  let photo: string | null = null;
  let address: { full: string | null; parts: Fact[] } | null = null;
  if (kind === "AADHAAR_OTP") {
    facts.push(
      ["Status", str(a.status)],
      ["Aadhaar", str(a.maskedAadhaar)],
      ["Name", str(a.name)],
      ["Date of birth", str(a.dob)],
      ["Year of birth", str(a.yearOfBirth)],
      ["Gender", GENDERS[String(a.gender)] ?? str(a.gender)],
      ["Care of", str(a.careOf)],
      ["Verified at", str(a.verifiedAt)],
    );
    photo = str(a.photo);
    const parts = (a.address ?? {}) as Stored;
    address = {
      full: str(a.fullAddress),
      parts: ADDRESS_PARTS.map(([k, label]) => ({ label, value: str(parts[k]) })).filter((f): f is Fact => f.value !== null),
    };
  } else if (kind === "PAN") {
    facts.push(
      ["PAN", str(a.pan)],
      ["Status", str(a.status)],
      ["Registered name", str(a.registeredName)],
      ["Category", str(a.category)],
      ["Name match", nameMatchText(a.nameMatch)],
      ["Date of birth matches", yesNo(a.dobMatch)],
      ["Aadhaar seeding", str(a.aadhaarSeedingStatus)],
    );
  } else {
    const ifsc = (a.ifscDetails ?? {}) as Stored;
    facts.push(
      ["Account exists", yesNo(a.accountExists)],
      ["Account status", str(a.accountStatus)],
      ["Name at bank", str(a.nameAtBank)],
      ["Name match", nameMatchText(a.nameMatch)],
      ["Bank", str(ifsc.bank)],
      ["Branch", str(ifsc.branch)],
      ["City", str(ifsc.city)],
      ["State", str(ifsc.state)],
      ["Bank reference", str(a.bankReference)],
    );
  }
  const charge = a.charge as { amount?: unknown } | undefined;
  facts.push(["Charged", rupees(charge?.amount)], ["Wallet balance after", rupees(a.walletBalance)]);
  return { facts: facts.map(([label, value]) => ({ label, value: value ?? "—" })), photo, address };
}

/**
 * The full stored answer, decrypted, while it is retained; after the retention purge only the
 * masked summary remains and this says so.
 */
export async function readKycResult(db: Db, encryptionKey: string, merchantId: string, mode: Mode, id: string, retentionDays: number) {
  const t = await findOwn(db, merchantId, mode, id);
  // Past its retention a result is gone even before the purge job has run.
  if (t.resultEnc === null || (t.resultExpiresAt !== null && t.resultExpiresAt.getTime() <= Date.now())) return { retained: false as const, retentionDays };
  let answer: Stored;
  try {
    const stored = JSON.parse(decrypt(t.resultEnc, encryptionKey)) as Stored;
    // The charge and balance are kept in the row's own columns (older rows also have them stored).
    answer = "walletBalance" in stored ? stored : { ...stored, ...chargeFields(t.id, t.feePaise, t.balanceAfterPaise) };
  } catch (err) {
    // A key changed since the call was stored: say so rather than fail with a bare 500.
    log.warn("kyc result could not be decrypted", { kycTransactionId: t.id, err });
    throw new AppError("INTERNAL_ERROR", "The stored result cannot be read (the encryption key has changed); the masked summary stays.");
  }
  return {
    retained: true as const,
    kind: t.kind as KycKind,
    expiresAt: isoOrNull(t.resultExpiresAt),
    ...shapeResult(t.kind as KycKind, answer),
    /** The whole answer as the API returned it, for copying. */
    json: JSON.stringify(answer, null, 2),
  };
}
