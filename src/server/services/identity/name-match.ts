/**
 * Name match for PAN verification: a 0–100 score with two decimals.
 *
 * Names are reduced to tokens (upper case, punctuation and honorifics dropped). Tokens are paired
 * one-to-one regardless of order; a pair can also be one token against a run of 2–3 adjacent
 * tokens on the other side (merged or split words, "RK" for "RAKESH KUMAR"). Every token weighs
 * the same, so a missing or unmatched token costs the same whatever its length:
 *
 *   score = 100 × Σ(pair sim × tokens in the pair) / (tokens in a + tokens in b)
 *
 * A business's name (any PAN holder but an individual) is compared in two parts. Its legal form
 * (Ltd/Limited, Pvt/Private, Co/Company, Corp/Corporation, LLP, OPC, HUF) is read into canonical
 * words and compared as a set; the rest (with M/S, THE and AND/& dropped) is scored as above. The
 * form only scales that score: the same or none → ×1, left off on one side → ×0.95, different
 * (LLP against PRIVATE LIMITED) → ×0.8. So "RELIANCE TEST LTD" and "RELIANCE TEST LIMITED" are one
 * name, while two companies that share only "PRIVATE LIMITED" share nothing that counts.
 *
 * Runs on every PAN verification, so it works on char codes with reused buffers.
 */
import { nameMatchBand, type NameMatchResult } from "@/lib/name-match";
import type { PanCategory } from "@/lib/pan";

export type { NameMatchResult };

/**
 * Whose name it is. BUSINESS: any holder but an individual (company, firm, trust, HUF, AOP,
 * government…), whose legal-form words are normalised. UNKNOWN (a bank account's holder): BUSINESS
 * when either name carries a legal-form word no personal name has, else PERSON.
 */
export type NameHolder = "PERSON" | "BUSINESS" | "UNKNOWN";

/** The PAN's 4th letter says who holds it (B3's category): only P is a person. */
export function nameHolderOfPan(category: PanCategory): NameHolder {
  return category === "INDIVIDUAL" ? "PERSON" : "BUSINESS";
}

/** An initial against a full token starting with that letter. Kept low: "R K S" must stay < 70. */
const INITIAL_SIM = 0.6;
/** A known short form (MOHD, KR) against its full form. */
const ALIAS_SIM = 0.95;
/** Applied to a merged/split match ("RAMKUMAR" vs "RAM KUMAR"). */
const SPLIT_FACTOR = 0.96;
/** Below this two full tokens count as different names, not a typo. */
const MIN_TOKEN_SIM = 0.75;
/** A merged token must be at least this close to the joined run. */
const MIN_SPLIT_SIM = 0.9;
/** Longest run of tokens one token may stand for. */
const MAX_RUN = 3;

/** Bit masks track used tokens; longer names keep their first tokens (no real name has 31). */
const MAX_TOKENS = 30;

/** Dropped wherever they appear. */
const HONORIFICS = new Set(["MR", "MRS", "MS", "MISS", "SMT", "SHRIMATI", "SRIMATI", "SUSHRI", "SHRI", "KUM", "DR"]);
/**
 * Titles only before the name, and even there maybe a name part (KUMARI ANITA = ANITA KUMARI), so a
 * leading run is scored both ways. Later in a name they are name parts (VENKATA SRI LAKSHMI).
 */
const LEADING_HONORIFICS = new Set(["SRI", "KUMARI", "MASTER"]);

const ALIASES: Record<string, string> = {
  MOHD: "MOHAMMAD",
  MD: "MOHAMMAD",
  MOHAMMED: "MOHAMMAD",
  MUHAMMAD: "MOHAMMAD",
  MUHAMMED: "MOHAMMAD",
  MOHAMAD: "MOHAMMAD",
  MOHAMED: "MOHAMMAD",
  MOHAMMAD: "MOHAMMAD",
  KR: "KUMAR",
  KUMAR: "KUMAR",
};

/** Legal-form words as written → the form they name. */
const LEGAL_FORMS: Record<string, string> = {
  LIMITED: "LIMITED",
  LTD: "LIMITED",
  PRIVATE: "PRIVATE",
  PVT: "PRIVATE",
  COMPANY: "COMPANY",
  CO: "COMPANY",
  CORPORATION: "CORPORATION",
  CORP: "CORPORATION",
  CORPN: "CORPORATION",
  INCORPORATED: "INCORPORATED",
  INC: "INCORPORATED",
  LLP: "LLP",
  OPC: "OPC",
  HUF: "HUF",
};
/** Dropped from a business's name: they tell no two businesses apart ("&" is punctuation already). */
const BUSINESS_FILLERS = new Set(["AND", "THE", "MESSRS"]);
/** Words that make an account holder's name a business's: legal forms no Indian personal name has (CO is too short to tell). */
const BUSINESS_MARKERS = new Set(
  Object.keys(LEGAL_FORMS)
    .filter((w) => w !== "CO")
    .concat("MESSRS"),
);
/** "M/S" (messrs) written with its slash; "M S" alone may be a person's initials. */
const MESSRS_SLASH = /(?:^|[^A-Z])M\s*\/\s*S(?:[^A-Z]|$)/i;
/** The legal form left off on one side ("RELIANCE INDUSTRIES" for RELIANCE INDUSTRIES LIMITED), or partly (LIMITED for PRIVATE LIMITED). */
const FORM_OMITTED = 0.95;
/** Different legal forms (LLP against PRIVATE LIMITED): maybe another entity of the same name. */
const FORM_CONFLICT = 0.8;

const APOSTROPHES = /['\u2019\u2018`]/g;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
const NON_ASCII = /[^\x00-\x7f]/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Upper-cased tokens without punctuation and honorifics. Leading SRI/KUMARI/MASTER are kept here
 * (see leadingTitles): "KUMARI ANITA" may be a title or the reordered name "ANITA KUMARI".
 */
export function nameTokens(input: string): string[] {
  let s = input.toUpperCase();
  if (NON_ASCII.test(s)) s = s.normalize("NFKD").replace(COMBINING_MARKS, "");
  // An apostrophe joins (D'SOUZA = DSOUZA); every other mark separates (R.K. = R K).
  if (s.includes("'") || s.includes("\u2019") || s.includes("\u2018") || s.includes("`")) {
    s = s.replace(APOSTROPHES, "");
  }
  const tokens: string[] = [];
  let start = -1;
  const len = s.length;
  for (let i = 0; i <= len; i++) {
    const c = i < len ? s.charCodeAt(i) : 32;
    const word = (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || (c > 127 && LETTER_OR_DIGIT.test(s.charAt(i)));
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      tokens.push(s.slice(start, i));
      start = -1;
    }
  }
  const out: string[] = [];
  for (const t of tokens) if (!HONORIFICS.has(t)) out.push(t);
  return out;
}

/** How many leading tokens may be a title rather than part of the name. */
function leadingTitles(tokens: string[]): number {
  let n = 0;
  while (n < tokens.length && LEADING_HONORIFICS.has(tokens[n]!)) n++;
  return n;
}

// Reused scratch space; names are short, the buffers grow if ever needed.
let flagsA = new Uint8Array(128);
let flagsB = new Uint8Array(128);
let row = new Int32Array(129);

function ensureCapacity(n: number): void {
  if (n < flagsA.length) return;
  const size = n * 2;
  flagsA = new Uint8Array(size);
  flagsB = new Uint8Array(size);
  row = new Int32Array(size + 1);
}

function jaroWinkler(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  flagsA.fill(0, 0, la);
  flagsB.fill(0, 0, lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const c = a.charCodeAt(i);
    const hi = Math.min(lb - 1, i + window);
    for (let j = Math.max(0, i - window); j <= hi; j++) {
      if (flagsB[j] === 0 && b.charCodeAt(j) === c) {
        flagsA[i] = 1;
        flagsB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let half = 0;
  for (let i = 0, j = 0; i < la; i++) {
    if (flagsA[i] === 0) continue;
    while (flagsB[j] === 0) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) half++;
    j++;
  }
  const jaro = (matches / la + matches / lb + (matches - half / 2) / matches) / 3;
  if (jaro <= 0.7) return jaro;
  let prefix = 0;
  const maxPrefix = Math.min(4, la, lb);
  while (prefix < maxPrefix && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

function levenshtein(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  for (let j = 0; j <= lb; j++) row[j] = j;
  for (let i = 1; i <= la; i++) {
    let diag = row[0]!;
    row[0] = i;
    const c = a.charCodeAt(i - 1);
    for (let j = 1; j <= lb; j++) {
      const up = row[j]!;
      const cost = c === b.charCodeAt(j - 1) ? 0 : 1;
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diag + cost);
      diag = up;
    }
  }
  return row[lb]!;
}

const letterCounts = new Int32Array(128);

/** Letters two tokens share, counted as multisets (-1 when `a` is not all ASCII). */
function sharedLetters(a: string, b: string): number {
  const la = a.length;
  for (let i = 0; i < la; i++) if (a.charCodeAt(i) > 127) return -1;
  for (let i = 0; i < la; i++) letterCounts[a.charCodeAt(i)]!++;
  let shared = 0;
  for (let j = 0; j < b.length; j++) {
    const c = b.charCodeAt(j);
    if (c < 128 && letterCounts[c]! > 0) {
      letterCounts[c]!--;
      shared++;
    }
  }
  for (let i = 0; i < la; i++) letterCounts[a.charCodeAt(i)] = 0;
  return shared;
}

/**
 * Typo similarity of two full tokens: mean of Jaro-Winkler (rewards a shared start, forgives
 * transpositions) and normalised edit distance (keeps "RAM" from matching "RAMKUMAR").
 */
export function typoSimilarity(a: string, b: string): number {
  const max = a.length > b.length ? a.length : b.length;
  ensureCapacity(max);
  return (jaroWinkler(a, b) + (1 - levenshtein(a, b) / max)) / 2;
}

/**
 * An upper bound of typoSimilarity from the letters two tokens share (as multisets), or 1 when `a`
 * is not all ASCII. An alignment keeps at most `shared` letters (edit distance ≥ max − shared), and
 * Jaro matches at most `shared`, which caps Jaro-Winkler at 0.6·jaro + 0.4.
 */
export function typoSimilarityCap(a: string, b: string): number {
  const shared = sharedLetters(a, b);
  if (shared < 0) return 1;
  const jaroCap = (shared / a.length + shared / b.length + 1) / 3;
  return (0.6 * jaroCap + 0.4 + shared / Math.max(a.length, b.length)) / 2;
}

/** typoSimilarity, or 0 for a pair that cannot reach MIN_TOKEN_SIM (the floor of both callers). */
function fuzzy(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  const max = la > lb ? la : lb;
  // The edit part alone caps the mean at 1 − diff/(2·max): skip pairs that cannot reach the floor.
  if (Math.abs(la - lb) > max * 2 * (1 - MIN_TOKEN_SIM)) return 0;
  // Most pairs of different names share few letters: the cap skips them for a fraction of the cost.
  if (typoSimilarityCap(a, b) < MIN_TOKEN_SIM - 1e-9) return 0;
  return typoSimilarity(a, b);
}

function tokenSim(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 1 || b.length === 1) {
    return a.length !== b.length && a.charCodeAt(0) === b.charCodeAt(0) ? INITIAL_SIM : 0;
  }
  const ca = ALIASES[a];
  if (ca !== undefined && ca === ALIASES[b]) return ALIAS_SIM;
  const s = fuzzy(a, b);
  return s >= MIN_TOKEN_SIM ? s : 0;
}

/** One token against the run `run[start .. start+k)`: merged spelling or initials of the run. */
function runSim(token: string, run: string[], start: number, k: number): number {
  let total = 0;
  for (let t = 0; t < k; t++) total += run[start + t]!.length;
  if (token.length === k && total > k) {
    // "RK" for RAKESH KUMAR
    let initials = true;
    for (let t = 0; t < k && initials; t++) initials = run[start + t]!.charCodeAt(0) === token.charCodeAt(t);
    if (initials) return INITIAL_SIM;
  }
  if (token.length < 2 || Math.abs(token.length - total) > token.length * 0.2 + 1) return 0;
  let joined = run[start]!;
  for (let t = 1; t < k; t++) joined += run[start + t]!;
  const s = token === joined ? 1 : fuzzy(token, joined);
  return s >= MIN_SPLIT_SIM ? s * SPLIT_FACTOR : 0;
}

interface Pair {
  a0: number;
  aLen: number;
  b0: number;
  bLen: number;
  sim: number;
}

function score(a: string[], b: string[]): number {
  const n = a.length;
  const m = b.length;
  const pairs: Pair[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const s = tokenSim(a[i]!, b[j]!);
      if (s > 0) pairs.push({ a0: i, aLen: 1, b0: j, bLen: 1, sim: s });
    }
  }
  for (let k = 2; k <= MAX_RUN; k++) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j + k <= m; j++) {
        const s = runSim(a[i]!, b, j, k);
        if (s > 0) pairs.push({ a0: i, aLen: 1, b0: j, bLen: k, sim: s });
      }
    }
    for (let j = 0; j < m; j++) {
      for (let i = 0; i + k <= n; i++) {
        const s = runSim(b[j]!, a, i, k);
        if (s > 0) pairs.push({ a0: i, aLen: k, b0: j, bLen: 1, sim: s });
      }
    }
  }
  // Greedy: best pairs first, the wider pair on a tie; names are short so this is near-optimal.
  pairs.sort((x, y) => y.sim - x.sim || y.aLen + y.bLen - (x.aLen + x.bLen) || x.a0 - y.a0 || x.b0 - y.b0);
  let usedA = 0;
  let usedB = 0;
  let matched = 0;
  for (const p of pairs) {
    const maskA = ((1 << p.aLen) - 1) << p.a0;
    const maskB = ((1 << p.bLen) - 1) << p.b0;
    if ((usedA & maskA) !== 0 || (usedB & maskB) !== 0) continue;
    usedA |= maskA;
    usedB |= maskB;
    matched += p.sim * (p.aLen + p.bLen);
  }
  return (100 * matched) / (n + m);
}

function sameTokens(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function ordered(a: string[], b: string[]): number {
  if (sameTokens(a, b)) return 100;
  // Fixed argument order makes the greedy tie-breaks, and so the score, exactly symmetric.
  return a.join(" ") <= b.join(" ") ? score(a, b) : score(b, a);
}

/** The unrounded score of two token lists, a leading title-like token scored both as a title and as a name part. */
function personScore(ta: string[], tb: string[]): number {
  const la = leadingTitles(ta);
  const lb = leadingTitles(tb);
  const va = la > 0 && la < ta.length ? [ta, ta.slice(la)] : [ta];
  const vb = lb > 0 && lb < tb.length ? [tb, tb.slice(lb)] : [tb];
  let raw = 0;
  for (const x of va) {
    for (const y of vb) {
      if (x.length === 0 || y.length === 0) continue;
      const s = ordered(x, y);
      if (s > raw) raw = s;
    }
  }
  return raw;
}

interface BusinessName {
  /** The words that tell this business from others, in order. */
  core: string[];
  /** Its legal form as canonical words, sorted, each once. */
  forms: string[];
}

/** A business's tokens split into its distinctive words and its legal form. */
function businessName(tokens: string[]): BusinessName {
  const core: string[] = [];
  const forms: string[] = [];
  const n = tokens.length;
  // M/S, M/s. or M.S. before the name (its tokens M S); kept when nothing would be left.
  let i = n > 2 && tokens[0] === "M" && tokens[1] === "S" ? 2 : 0;
  while (i < n) {
    const t = tokens[i]!;
    const next = i + 1 < n ? tokens[i + 1]! : "";
    const third = i + 2 < n ? tokens[i + 2]! : "";
    let form: string | undefined;
    let used = 1;
    if (BUSINESS_FILLERS.has(t)) form = "";
    else if (t === "L" && next === "L" && third === "P") [form, used] = ["LLP", 3];
    else if (t === "O" && next === "P" && third === "C") [form, used] = ["OPC", 3];
    else if ((t === "LIMITED" || t === "LTD") && next === "LIABILITY" && third === "PARTNERSHIP") [form, used] = ["LLP", 3];
    // "(P) LTD" is Private Limited.
    else if (t === "P" && LEGAL_FORMS[next] === "LIMITED") form = "PRIVATE";
    else if (t === "CO" && (next === "OPERATIVE" || next === "OP")) {
      // CO-OPERATIVE is a word of the name, not "company".
      core.push("COOPERATIVE");
      used = 2;
    } else if (t === "COOP") core.push("COOPERATIVE");
    else {
      form = LEGAL_FORMS[t];
      if (form === undefined) core.push(t);
    }
    if (form && !forms.includes(form)) forms.push(form);
    i += used;
  }
  return { core, forms: forms.sort() };
}

function containsAll(big: string[], small: string[]): boolean {
  for (const f of small) if (!big.includes(f)) return false;
  return true;
}

/** How two legal forms scale the score of the rest of the names (see the header). */
function formFactor(fa: string[], fb: string[]): number {
  if (fa.length === fb.length && containsAll(fa, fb)) return 1;
  if (fa.length === 0 || fb.length === 0) return FORM_OMITTED;
  return containsAll(fa, fb) || containsAll(fb, fa) ? FORM_OMITTED : FORM_CONFLICT;
}

function businessScore(ta: string[], tb: string[]): number {
  const a = businessName(ta);
  const b = businessName(tb);
  // A name made only of form words (THE COMPANY) has nothing else to compare: score it whole.
  if (a.core.length === 0 || b.core.length === 0) return personScore([...a.core, ...a.forms], [...b.core, ...b.forms]);
  return personScore(a.core, b.core) * formFactor(a.forms, b.forms);
}

function looksLikeBusiness(raw: string, tokens: string[]): boolean {
  for (const t of tokens) if (BUSINESS_MARKERS.has(t)) return true;
  return raw.includes("/") && MESSRS_SLASH.test(raw);
}

/**
 * Symmetric 0–100 score, two decimals (half up). 0 when either name is empty after normalising.
 * `holder` says whose names they are (a PAN's category gives it: nameHolderOfPan).
 */
export function nameMatchScore(a: string, b: string, holder: NameHolder = "PERSON"): number {
  let ta = nameTokens(a);
  let tb = nameTokens(b);
  if (ta.length > MAX_TOKENS) ta = ta.slice(0, MAX_TOKENS);
  if (tb.length > MAX_TOKENS) tb = tb.slice(0, MAX_TOKENS);
  const business = holder === "BUSINESS" || (holder === "UNKNOWN" && (looksLikeBusiness(a, ta) || looksLikeBusiness(b, tb)));
  const raw = business ? businessScore(ta, tb) : personScore(ta, tb);
  const rounded = Math.round(raw * 100 + 1e-7) / 100;
  return rounded > 100 ? 100 : rounded;
}

/** B3's bands: MATCH ≥ 90, PARTIAL 70–89.99, NO_MATCH < 70 (shared with the dashboard's pages). */
export const nameMatchResult = nameMatchBand;
