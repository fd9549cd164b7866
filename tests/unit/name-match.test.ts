import { describe, expect, it } from "vitest";
import { PAN_CATEGORY_VALUES } from "@/lib/pan";
import {
  nameHolderOfPan,
  nameMatchResult,
  nameMatchScore,
  nameTokens,
  typoSimilarity,
  typoSimilarityCap,
  type NameHolder,
  type NameMatchResult,
} from "@/server/services/identity/name-match";

const both = (a: string, b: string) => {
  const s = nameMatchScore(a, b);
  expect(nameMatchScore(b, a), `symmetry of ${a} / ${b}`).toBe(s);
  return s;
};

describe("nameTokens", () => {
  it("upper-cases, drops punctuation and extra spaces", () => {
    expect(nameTokens("  rakesh   kumar,singh. ")).toEqual(["RAKESH", "KUMAR", "SINGH"]);
    expect(nameTokens("R.K. Singh")).toEqual(["R", "K", "SINGH"]);
    expect(nameTokens("Anne-Marie")).toEqual(["ANNE", "MARIE"]);
  });

  it("joins across apostrophes", () => {
    expect(nameTokens("John D'Souza")).toEqual(["JOHN", "DSOUZA"]);
    expect(nameTokens("D’SOUZA")).toEqual(["DSOUZA"]);
  });

  it("drops honorifics anywhere but keeps title-like name parts", () => {
    expect(nameTokens("Mr. Dr. Rakesh Singh")).toEqual(["RAKESH", "SINGH"]);
    expect(nameTokens("SMT SUNITA DEVI")).toEqual(["SUNITA", "DEVI"]);
    expect(nameTokens("SHRI RAM LAL (MR)")).toEqual(["RAM", "LAL"]);
    // Leading SRI/KUMARI are kept here and scored both ways by nameMatchScore.
    expect(nameTokens("KUMARI ANITA")).toEqual(["KUMARI", "ANITA"]);
  });

  it("strips accents", () => {
    expect(nameTokens("José Fernandes")).toEqual(["JOSE", "FERNANDES"]);
  });
});

describe("nameMatchScore: the calibration the API promises", () => {
  it("identical → 100", () => {
    expect(both("RAKESH KUMAR SINGH", "RAKESH KUMAR SINGH")).toBe(100);
  });

  it("case, punctuation and extra spaces do not matter → 100", () => {
    expect(both("rakesh  kumar-singh.", "RAKESH KUMAR SINGH")).toBe(100);
    expect(both("R.K. SINGH", "R K SINGH")).toBe(100);
  });

  it.each([
    ["MR RAKESH KUMAR SINGH", "RAKESH KUMAR SINGH"],
    ["Mrs. Sunita Devi", "SUNITA DEVI"],
    ["SMT. SUNITA DEVI", "MS SUNITA DEVI"],
    ["SHRI RAM LAL", "RAM LAL"],
    ["SRI VENKATESH IYER", "VENKATESH IYER"],
    ["KUM PRIYA SHARMA", "PRIYA SHARMA"],
    ["KUMARI PRIYA SHARMA", "PRIYA SHARMA"],
    ["Dr. Anil Mehta", "ANIL MEHTA"],
    ["MISS ANITA JOSHI", "ANITA JOSHI"],
  ])("honorific-only difference → 100: %s / %s", (a, b) => {
    expect(both(a, b)).toBe(100);
  });

  it.each([
    ["SINGH RAKESH KUMAR", "RAKESH KUMAR SINGH"],
    ["KUMAR SINGH RAKESH", "RAKESH KUMAR SINGH"],
    ["SHARMA PRIYA", "PRIYA SHARMA"],
  ])("reordered tokens → ≥ 95: %s / %s", (a, b) => {
    expect(both(a, b)).toBeGreaterThanOrEqual(95);
  });

  it("an initial matches a full token at a penalty: RAKESH K SINGH → 80–95", () => {
    const s = both("RAKESH K SINGH", "RAKESH KUMAR SINGH");
    expect(s).toBeGreaterThanOrEqual(80);
    expect(s).toBeLessThanOrEqual(95);
    expect(s).toBeLessThan(100);
    expect(both("R KUMAR SINGH", "RAKESH KUMAR SINGH")).toBe(s);
  });

  it.each([
    ["RAJESH KUMAR SHARMA", "RAJESH KUMAR SHARNA"],
    ["RAJESH KUMAR SHARMA", "RAJESH KUMAR SAHRMA"],
    ["VENKATESH NARAYANAN IYER", "VENKATESH NARAYANAN IYYER"],
    ["PRIYANKA CHATURVEDI", "PRIYANKA CHATURVEDY"],
  ])("one typo in a long name → ≥ 85 and < 100: %s / %s", (a, b) => {
    const s = both(a, b);
    expect(s).toBeGreaterThanOrEqual(85);
    expect(s).toBeLessThan(100);
  });

  it.each([
    ["RAKESH KUMAR SINGH", "PRIYA DEVI PATEL"],
    ["AMIT SHAH", "SUNITA IYER"],
    ["MOHAMMAD IMRAN KHAN", "JOHN MATHEW THOMAS"],
    ["RAKESH KUMAR", "SURESH VERMA"],
  ])("unrelated names → < 40: %s / %s", (a, b) => {
    expect(both(a, b)).toBeLessThan(40);
  });

  it("two people sharing only a surname do not match", () => {
    expect(nameMatchResult(both("RAKESH SINGH", "PRIYA SINGH"))).toBe("NO_MATCH");
  });

  it("initials only: R K S / RAKESH KUMAR SINGH → < 70", () => {
    const s = both("R K S", "RAKESH KUMAR SINGH");
    expect(s).toBeLessThan(70);
    expect(s).toBeGreaterThan(0);
    expect(both("RKS", "RAKESH KUMAR SINGH")).toBeLessThan(70);
  });

  it("split/merged tokens score high", () => {
    expect(both("RAMKUMAR VERMA", "RAM KUMAR VERMA")).toBeGreaterThanOrEqual(90);
    expect(both("RAMKUMAR VERMA", "RAM KUMAR VERMA")).toBeLessThan(100);
    expect(both("VENKATA SRILAKSHMI", "VENKATA SRI LAKSHMI")).toBeGreaterThanOrEqual(90);
    expect(both("RK SINGH", "R K SINGH")).toBeGreaterThanOrEqual(90);
    expect(both("MOHAMMADIMRAN KHAN", "MOHAMMAD IMRAN KHAN")).toBeGreaterThanOrEqual(90);
  });

  it("empty after normalisation → 0", () => {
    expect(both("", "RAKESH")).toBe(0);
    expect(both("   ", "RAKESH")).toBe(0);
    expect(both("...", "RAKESH")).toBe(0);
    expect(both("MR", "RAKESH")).toBe(0);
    expect(both("MR. DR.", "")).toBe(0);
  });
});

describe("nameMatchScore: further behaviour", () => {
  it("a missing middle name is a partial match", () => {
    const s = both("RAKESH SINGH", "RAKESH KUMAR SINGH");
    expect(nameMatchResult(s)).toBe("PARTIAL");
  });

  it("a prefix of a long name is not a typo", () => {
    expect(both("RAM SINGH", "RAMKUMAR SINGH")).toBeLessThan(70);
    expect(both("RAVI", "RAVINDRA")).toBe(0);
  });

  it("initials written together match as initials", () => {
    const s = both("RK SINGH", "RAKESH KUMAR SINGH");
    expect(s).toBeGreaterThanOrEqual(70);
    expect(s).toBeLessThan(90);
  });

  it("common short forms", () => {
    expect(both("MOHD ASLAM", "MOHAMMED ASLAM")).toBeGreaterThanOrEqual(95);
    expect(both("RAJ KR SINGH", "RAJ KUMAR SINGH")).toBeGreaterThanOrEqual(95);
  });

  it("a leading KUMARI can be a name part", () => {
    expect(both("KUMARI ANITA", "ANITA KUMARI")).toBe(100);
    expect(both("ANITA KUMARI", "ANITA")).toBeLessThan(70);
  });

  it("different first letter of an initial does not match", () => {
    expect(both("RAKESH P SINGH", "RAKESH KUMAR SINGH")).toBeLessThan(both("RAKESH K SINGH", "RAKESH KUMAR SINGH"));
  });

  it("more differences never score higher than fewer", () => {
    const one = both("RAJESH KUMAR SHARNA", "RAJESH KUMAR SHARMA");
    const two = both("RAJESH KUMAR SHARNA", "RAJESH KUMAR SHARMA SINGH");
    expect(two).toBeLessThan(one);
  });

  it("handles very long input", () => {
    const long = Array.from({ length: 60 }, (_, i) => `N${i}`).join(" ");
    const s = both(long, long + " X");
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThanOrEqual(100);
  });
});

describe("nameMatchScore: properties", () => {
  const names = [
    "RAKESH KUMAR SINGH",
    "RAKESH K SINGH",
    "R K S",
    "SINGH RAKESH",
    "PRIYA DEVI PATEL",
    "PRIYA PATEL",
    "MR. RAJESH SHARMA",
    "RAJESH KUMAR SHARNA",
    "RAMKUMAR VERMA",
    "RAM KUMAR VERMA",
    "KUMARI ANITA",
    "ANITA KUMARI",
    "MOHD IMRAN KHAN",
    "SRI LAKSHMI",
    "SRILAKSHMI",
    "A",
    "A B",
    "AB",
    "JOHN D'SOUZA",
    "",
    "VENKATA SATYA NARAYANA MURTHY",
    "V S N MURTHY",
    "O'BRIEN",
    "ZOYA QAZI",
    "SHAH",
    "SHAHRUKH",
  ];

  it("is symmetric, within 0–100, with at most two decimals", () => {
    for (const a of names) {
      for (const b of names) {
        const s = nameMatchScore(a, b);
        expect(nameMatchScore(b, a), `${a} / ${b}`).toBe(s);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(100);
        expect(Math.abs(s * 100 - Math.round(s * 100)), `${a} / ${b} = ${s}`).toBeLessThan(1e-6);
      }
    }
  });

  it("every non-empty name matches itself fully", () => {
    for (const a of names) expect(nameMatchScore(a, a)).toBe(a === "" ? 0 : 100);
  });

  it("rounds to two decimals (2/3 of the way → .67)", () => {
    // RAKESH K SINGH: (1 + 1 + 0.6) × 2 / 6 = 86.666… → 86.67
    expect(nameMatchScore("RAKESH K SINGH", "RAKESH KUMAR SINGH")).toBe(86.67);
  });
});

/**
 * Business names (PANs whose 4th letter is not P). The bands are a person's judgement of each pair,
 * written by hand, not read off the scorer: the same registered name however its legal form is
 * spelled is a MATCH; a name whose legal form differs, or that leaves out a word of the name, is
 * PARTIAL; companies that share only legal-form or common words are NO_MATCH.
 */
const BUSINESS_PAIRS: [string, string, NameMatchResult][] = [
  ["Reliance Test Ltd", "RELIANCE TEST LIMITED", "MATCH"],
  ["Kohli Engineering Pvt Ltd", "KOHLI ENGINEERING PRIVATE LIMITED", "MATCH"],
  ["TATA CONSULTANCY SERVICES PVT. LTD.", "TATA CONSULTANCY SERVICES PRIVATE LIMITED", "MATCH"],
  ["Sunrise Agro (P) Ltd", "SUNRISE AGRO PRIVATE LIMITED", "MATCH"],
  ["M/s Sharma Traders", "SHARMA TRADERS", "MATCH"],
  ["M/S. KRISHNA & CO.", "KRISHNA AND COMPANY", "MATCH"],
  ["Messrs Krishna & Co", "KRISHNA AND CO", "MATCH"],
  ["Larsen & Toubro Ltd", "LARSEN AND TOUBRO LIMITED", "MATCH"],
  ["Indian Oil Corp Ltd", "INDIAN OIL CORPORATION LIMITED", "MATCH"],
  ["Bharat Petroleum Corpn. Ltd.", "BHARAT PETROLEUM CORPORATION LIMITED", "MATCH"],
  ["Acme Widgets LLP", "ACME WIDGETS L.L.P.", "MATCH"],
  ["Acme Widgets Limited Liability Partnership", "ACME WIDGETS LLP", "MATCH"],
  ["The Indian Hotels Company Limited", "INDIAN HOTELS CO LTD", "MATCH"],
  ["Gujarat State Co-operative Bank Ltd", "GUJARAT STATE COOPERATIVE BANK LIMITED", "MATCH"],
  ["Nova Ideas (OPC) Pvt Ltd", "NOVA IDEAS OPC PRIVATE LIMITED", "MATCH"],
  ["Ramesh Kumar HUF", "RAMESH KUMAR (HUF)", "MATCH"],
  ["Sai Charitable Trust", "SAI CHARITABLE TRUST", "MATCH"],
  // The legal form left off: still the registered name.
  ["Reliance Industries", "RELIANCE INDUSTRIES LIMITED", "MATCH"],
  ["Infosys Limited", "INFOSYS PRIVATE LIMITED", "MATCH"],
  // One typo in the name itself.
  ["Zenith Softech Pvt Ltd", "ZENITH SOFTTECH PRIVATE LIMITED", "MATCH"],
  // Same name, another legal form: maybe another entity.
  ["Acme Widgets Private Limited", "ACME WIDGETS LLP", "PARTIAL"],
  ["Krishna & Co", "KRISHNA PRIVATE LIMITED", "PARTIAL"],
  // A word of the name missing.
  ["Shree Ganesh Enterprises", "SHREE GANESH TRADING ENTERPRISES PVT LTD", "PARTIAL"],
  // Different companies.
  ["ABC PRIVATE LIMITED", "XYZ PRIVATE LIMITED", "NO_MATCH"],
  ["ABC Pvt Ltd", "XYZ PRIVATE LIMITED", "NO_MATCH"],
  ["M/S ABC & CO", "M/S XYZ & CO", "NO_MATCH"],
  ["Sharma Traders Pvt Ltd", "VERMA TRADERS PRIVATE LIMITED", "NO_MATCH"],
  ["Reliance Industries Ltd", "RELIANCE RETAIL LIMITED", "NO_MATCH"],
  ["Tata Motors Limited", "TATA STEEL LIMITED", "NO_MATCH"],
  ["Infosys Ltd", "WIPRO LIMITED", "NO_MATCH"],
  ["The Bombay Company Ltd", "THE MADRAS COMPANY LIMITED", "NO_MATCH"],
];

describe("nameMatchScore: business names", () => {
  it.each(BUSINESS_PAIRS)("%s / %s → %s", (a, b, band) => {
    const s = nameMatchScore(a, b, "BUSINESS");
    expect(nameMatchScore(b, a, "BUSINESS"), "symmetric").toBe(s);
    expect(nameMatchResult(s), `${s}`).toBe(band);
  });

  it("the same name in any spelling of its legal form scores 100", () => {
    expect(nameMatchScore("Reliance Test Ltd", "RELIANCE TEST LIMITED", "BUSINESS")).toBe(100);
    expect(nameMatchScore("M/S. KRISHNA & CO.", "KRISHNA AND COMPANY", "BUSINESS")).toBe(100);
  });

  it("a legal form left off, wholly or partly, is still a MATCH but not the identical name", () => {
    for (const [a, b] of [
      ["Reliance Industries", "RELIANCE INDUSTRIES LIMITED"],
      ["Infosys Limited", "INFOSYS PRIVATE LIMITED"],
    ]) {
      const s = nameMatchScore(a!, b!, "BUSINESS");
      expect(s, `${a} / ${b}`).toBeLessThan(100);
      expect(nameMatchResult(s)).toBe("MATCH");
    }
  });

  it("shared legal-form words count for nothing between two names", () => {
    expect(nameMatchScore("ABC PRIVATE LIMITED", "XYZ PRIVATE LIMITED", "BUSINESS")).toBe(0);
  });

  it("a name of legal-form words only is compared whole", () => {
    expect(nameMatchScore("THE COMPANY", "THE CO", "BUSINESS")).toBe(100);
    expect(nameMatchScore("LIMITED", "ABC LIMITED", "BUSINESS")).toBeLessThan(70);
  });

  it("a leading M S is dropped only when a name is left after it", () => {
    expect(nameMatchScore("M/S", "M S", "BUSINESS")).toBe(100);
  });

  it("people's names score as before: the B3 calibration pairs are untouched by the holder UNKNOWN", () => {
    const people = [
      ["RAKESH K SINGH", "RAKESH KUMAR SINGH"],
      ["R K S", "RAKESH KUMAR SINGH"],
      ["M S DHONI", "MAHENDRA SINGH DHONI"],
      ["MR RAKESH KUMAR SINGH", "RAKESH KUMAR SINGH"],
      ["RAMKUMAR VERMA", "RAM KUMAR VERMA"],
      ["ANITA KUMARI", "ANITA"],
      ["SINGH RAKESH KUMAR", "RAKESH KUMAR SINGH"],
      ["C/O RAVI KUMAR", "RAVI KUMAR"],
    ];
    for (const [a, b] of people) expect(nameMatchScore(a!, b!, "UNKNOWN"), `${a} / ${b}`).toBe(nameMatchScore(a!, b!, "PERSON"));
  });

  it("a person's name is not read as a business's: M S are initials, LTD is nothing special", () => {
    // M S DHONI vs MAHENDRA SINGH DHONI keeps its initials (dropping M S as M/S would leave DHONI alone).
    expect(nameMatchScore("M S DHONI", "MAHENDRA SINGH DHONI")).toBe(nameMatchScore("M S DHONI", "MAHENDRA SINGH DHONI", "PERSON"));
    expect(nameMatchScore("M S DHONI", "DHONI", "PERSON")).toBeLessThan(70);
  });

  it("UNKNOWN (a bank account) reads a business from a legal form or M/S on either side", () => {
    expect(nameMatchResult(nameMatchScore("Kohli Engineering Private Limited", "KOHLI ENGINEERING PVT LTD", "UNKNOWN"))).toBe("MATCH");
    expect(nameMatchResult(nameMatchScore("M/s Sharma Traders", "SHARMA TRADERS", "UNKNOWN"))).toBe("MATCH");
    expect(nameMatchResult(nameMatchScore("ABC PVT LTD", "XYZ PRIVATE LIMITED", "UNKNOWN"))).toBe("NO_MATCH");
  });

  it("the PAN's category gives the holder: only an individual is a person", () => {
    const holders = Object.fromEntries(PAN_CATEGORY_VALUES.map((c) => [c, nameHolderOfPan(c)]));
    const expected: Record<string, NameHolder> = {
      INDIVIDUAL: "PERSON",
      COMPANY: "BUSINESS",
      HUF: "BUSINESS",
      FIRM: "BUSINESS",
      AOP: "BUSINESS",
      TRUST: "BUSINESS",
      BOI: "BUSINESS",
      LOCAL_AUTHORITY: "BUSINESS",
      ARTIFICIAL_JURIDICAL_PERSON: "BUSINESS",
      GOVERNMENT: "BUSINESS",
    };
    expect(holders).toEqual(expected);
  });
});

describe("nameMatchResult", () => {
  it.each([
    [100, "MATCH"],
    [90, "MATCH"],
    [89.99, "PARTIAL"],
    [70, "PARTIAL"],
    [69.99, "NO_MATCH"],
    [0, "NO_MATCH"],
  ] as const)("%d → %s", (score, result) => {
    expect(nameMatchResult(score)).toBe(result);
  });
});

describe("typo similarity of two tokens", () => {
  it("is the mean of Jaro-Winkler and normalised edit distance (Winkler's published pairs)", () => {
    // Jaro-Winkler MARTHA/MARHTA 0.961, DWAYNE/DUANE 0.840 (Winkler 1990); both are two edits apart in six letters.
    expect(typoSimilarity("MARTHA", "MARHTA")).toBeCloseTo((0.961111 + 4 / 6) / 2, 4);
    expect(typoSimilarity("DWAYNE", "DUANE")).toBeCloseTo((0.84 + 4 / 6) / 2, 4);
  });

  it("never exceeds the cap from shared letters that lets most pairs skip it", () => {
    // Random tokens and near copies of them (the pairs close to the floor are the ones that matter).
    let seed = 20261128;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const token = () => Array.from({ length: 1 + (next() % 11) }, () => String.fromCharCode(65 + (next() % 26))).join("");
    const edit = (t: string) => {
      const i = next() % t.length;
      const c = String.fromCharCode(65 + (next() % 26));
      return [
        t.slice(0, i) + c + t.slice(i + 1),
        t.slice(0, i) + t.slice(i + 1) || c,
        t.slice(0, i) + c + t.slice(i),
        t.slice(0, i) + t.slice(i + 1, i + 2) + t.charAt(i) + t.slice(i + 2),
      ][next() % 4]!;
    };
    let worst = Infinity;
    for (let k = 0; k < 50_000; k++) {
      const a = token();
      const b = k % 3 === 0 ? token() : k % 3 === 1 ? edit(a) : edit(edit(a));
      worst = Math.min(worst, typoSimilarityCap(a, b) - typoSimilarity(a, b));
    }
    expect(worst).toBeGreaterThanOrEqual(-1e-12);
  });
});

describe("a batch chunk's remembered name scores", () => {
  it("keep a pair's person and business scores apart", async () => {
    const { rememberedNameScores } = await import("@/server/services/batches/chunk-pass");
    const score = rememberedNameScores();
    // As a person's name LTD is just another word; as a company's, it is LIMITED.
    expect(nameMatchResult(score("Reliance Test Ltd", "RELIANCE TEST LIMITED", "PERSON"))).not.toBe("MATCH");
    expect(score("Reliance Test Ltd", "RELIANCE TEST LIMITED", "BUSINESS")).toBe(100);
    expect(nameMatchResult(score("Reliance Test Ltd", "RELIANCE TEST LIMITED", "PERSON"))).not.toBe("MATCH");
  });
});
