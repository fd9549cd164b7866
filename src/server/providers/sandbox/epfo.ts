/**
 * Sandbox EPFO source (docs/api.md, Sandbox fixtures). Every well-formed UAN and PF number answers deterministically;
 * the last four digits of the UAN, or of the PF number's member part, pick the outcome:
 *
 *   9991 not found (null)   9992 EXITED   9993 INACTIVE   9998 throws SOURCE_UNAVAILABLE
 *   anything else ACTIVE
 *
 * A member has 1–3 employments, newest first, with dates that never overlap (each exit is in an
 * earlier month than the next joining). All dates are fixed by the hash of the UAN / PF number
 * except one: an ACTIVE member's last contribution is always the calendar month before `now`
 * (UTC), so a member stays "active" whenever the sandbox is used. Fixed dates lie before 2024-01:
 * current jobs start 2016-01..2023-12, exits fall in 2019-01..2023-12, and INACTIVE members last
 * contributed in 2015-01..2020-12 (over 36 months before any `now` from 2024 on).
 *
 * A PF number lookup returns that account as the newest employment. Its UAN is derived from the PF
 * number (never ending 999x); UAN and PF lookups are separate fixtures and need not agree.
 */
import { establishmentId, formatPfNumber, isValidUan, parsePfNumber, type PfNumberParts } from "@/lib/epfo";
import { AppError } from "@/server/errors";
import { fnv1a32, mix32, pick, sandboxPersonName } from "@/server/providers/sandbox-names/names";
import type { EmploymentRecord, EpfoMember, EpfoProvider, MemberStatus } from "@/server/providers/epfo/types";

export interface SandboxEpfoOptions {
  /** Clock for an ACTIVE member's last contribution month (the month before now). */
  now?: () => Date;
}

/** Real-looking EPFO region/office pairs. */
const OFFICES: readonly (readonly [string, string])[] = [
  ["MH", "BAN"],
  ["MH", "PUN"],
  ["MH", "THN"],
  ["MH", "NGP"],
  ["DL", "CPM"],
  ["KN", "BNG"],
  ["KN", "MYS"],
  ["TN", "MAS"],
  ["TN", "CBE"],
  ["TS", "HYD"],
  ["GJ", "AHD"],
  ["GJ", "SRT"],
  ["WB", "CAL"],
  ["HR", "GGN"],
  ["UP", "NOI"],
  ["UP", "KNP"],
  ["RJ", "JPR"],
  ["MP", "IND"],
  ["KR", "KCH"],
  ["PB", "LDH"],
];

const EMPLOYER_PREFIXES = [
  "SHREE GANESH",
  "SAI KRIPA",
  "NAVBHARAT",
  "SURYODAY",
  "VIJAYA",
  "KAVERI",
  "NARMADA",
  "HIMALAYA",
  "GODAVARI",
  "ANNAPURNA",
  "MAHALAXMI",
  "JAI BHARAT",
  "OM SAI",
  "SHIVSHAKTI",
  "PRAGATI",
  "UNNATI",
  "SAHYADRI",
  "TRIVENI",
  "SARASWATI",
  "GAYATRI",
  "NEELKANTH",
  "SWASTIK",
  "DEEPJYOTI",
  "AARAV",
  "VEDANTA",
];

const EMPLOYER_TRADES = [
  "TEXTILES",
  "ENGINEERING WORKS",
  "INFOTECH",
  "PHARMACEUTICALS",
  "LOGISTICS",
  "AUTO COMPONENTS",
  "FOODS",
  "CONSTRUCTIONS",
  "SOFTWARE SOLUTIONS",
  "STEEL INDUSTRIES",
  "PACKAGING",
  "ELECTRICALS",
  "GARMENTS",
  "CHEMICALS",
  "AGRO INDUSTRIES",
  "HOSPITALITY SERVICES",
  "SECURITY SERVICES",
  "FACILITY SERVICES",
  "PLASTICS",
  "HEALTHCARE",
];

const EMPLOYER_SUFFIXES = ["PVT LTD", "PRIVATE LIMITED", "LIMITED", "LLP"];

/** The employer's name belongs to the establishment, so every lookup names it the same way. */
function employerName(estId: string): string {
  const h = fnv1a32(estId);
  return `${pick(EMPLOYER_PREFIXES, h, 0)} ${pick(EMPLOYER_TRADES, h, 1)} ${pick(EMPLOYER_SUFFIXES, h, 2)}`;
}

function specialOutcome(digits: string): "NOT_FOUND" | "UNAVAILABLE" | MemberStatus {
  switch (digits.slice(-4)) {
    case "9991":
      return "NOT_FOUND";
    case "9992":
      return "EXITED";
    case "9993":
      return "INACTIVE";
    case "9998":
      return "UNAVAILABLE";
    default:
      return "ACTIVE";
  }
}

/** Digits for generated numbers, kept clear of the special suffixes 9990–9999. */
function plainDigits(value: number, width: number): string {
  let n = value;
  if (n % 10000 >= 9990) n -= 10;
  return String(n).padStart(width, "0");
}

// Months are counted as year * 12 + (month - 1).
const month = (year: number, m: number) => year * 12 + m - 1;
const fmtMonth = (mi: number) => `${Math.floor(mi / 12)}-${String((mi % 12) + 1).padStart(2, "0")}`;
const fmtDate = (mi: number, day: number) => `${fmtMonth(mi)}-${String(day).padStart(2, "0")}`;

/** Random-looking but fixed numbers from one seed. */
class Draw {
  private salt = 100;
  constructor(private readonly seed: number) {}
  next(n: number): number {
    return mix32(this.seed, this.salt++) % n;
  }
}

function generatedAccount(draw: Draw): PfNumberParts {
  const [region, office] = OFFICES[draw.next(OFFICES.length)]!;
  return {
    region,
    office,
    establishment: String(1 + draw.next(199_999)).padStart(7, "0"),
    extension: "000",
    member: plainDigits(1 + draw.next(9_999_999), 7),
  };
}

function buildMember(seed: number, uan: string, status: MemberStatus, newest: PfNumberParts | null, nowMonth: number): EpfoMember {
  const draw = new Draw(seed);
  const count = 1 + draw.next(3);
  const history: EmploymentRecord[] = [];
  const employers = new Set<string>();
  let nextJoin = 0;
  for (let k = 0; k < count; k++) {
    let parts = k === 0 && newest ? newest : generatedAccount(draw);
    let estId = establishmentId(parts);
    // Distinct employers read better; a clash is rare, so redraw a few times at most.
    for (let tries = 0; employers.has(employerName(estId)) && tries < 5 && !(k === 0 && newest); tries++) {
      parts = generatedAccount(draw);
      estId = establishmentId(parts);
    }
    const employer = employerName(estId);
    employers.add(employer);

    let joinMonth: number;
    let exitMonth: number | null = null;
    let exitDay = 0;
    let lastMonth: number;
    const joinDay = 1 + draw.next(28);
    if (k > 0 || status === "EXITED") {
      exitMonth = k > 0 ? nextJoin - (1 + draw.next(4)) : month(2019, 1) + draw.next(60);
      exitDay = 1 + draw.next(28);
      // Salary for an exit in the first half of a month was last credited the month before.
      lastMonth = exitDay >= 15 ? exitMonth : exitMonth - 1;
      joinMonth = exitMonth - (12 + draw.next(61));
    } else if (status === "ACTIVE") {
      joinMonth = month(2016, 1) + draw.next(96);
      lastMonth = nowMonth - 1;
    } else {
      lastMonth = month(2015, 1) + draw.next(72);
      joinMonth = lastMonth - (12 + draw.next(61));
    }
    nextJoin = joinMonth;
    history.push({
      establishment_id: estId,
      employer,
      pf_number: formatPfNumber(parts),
      date_of_joining: fmtDate(joinMonth, joinDay),
      date_of_exit: exitMonth === null ? null : fmtDate(exitMonth, exitDay),
      last_contribution_month: fmtMonth(lastMonth),
      // An INACTIVE member's open account is not a current job: nothing was paid in for years.
      is_current: k === 0 && status === "ACTIVE",
    });
  }
  const latest = history[0]!;
  return {
    uan,
    pf_number: latest.pf_number,
    member_name: sandboxPersonName(mix32(seed, 1)),
    employer: latest.employer,
    member_status: status,
    last_contribution_month: latest.last_contribution_month,
    date_of_exit: latest.date_of_exit,
    employment_history: history,
  };
}

function unavailable(): never {
  throw new AppError("SOURCE_UNAVAILABLE", undefined, { retryAfterSeconds: 30 });
}

function currentMonth(now: () => Date): number {
  const d = now();
  return month(d.getUTCFullYear(), d.getUTCMonth() + 1);
}

export function createSandboxEpfoProvider(options: SandboxEpfoOptions = {}): EpfoProvider {
  const now = options.now ?? (() => new Date());
  return {
    async byUan(uan) {
      if (!isValidUan(uan)) throw new AppError("INVALID_UAN");
      const outcome = specialOutcome(uan);
      if (outcome === "NOT_FOUND") return null;
      if (outcome === "UNAVAILABLE") unavailable();
      return buildMember(fnv1a32(`UAN:${uan}`), uan, outcome, null, currentMonth(now));
    },
    async byPfNumber(pf) {
      const parts = typeof pf === "string" ? parsePfNumber(pf) : parsePfNumber(formatPfNumber(pf));
      if (!parts) throw new AppError("INVALID_PF_NUMBER");
      const outcome = specialOutcome(parts.member);
      if (outcome === "NOT_FOUND") return null;
      if (outcome === "UNAVAILABLE") unavailable();
      const seed = fnv1a32(`PF:${formatPfNumber(parts)}`);
      const uan = `10${plainDigits(mix32(seed, 2) % 100_000, 5)}${plainDigits(mix32(seed, 3) % 100_000, 5)}`;
      return buildMember(seed, uan, outcome, parts, currentMonth(now));
    },
  };
}

export const sandboxEpfoProvider: EpfoProvider = createSandboxEpfoProvider();
