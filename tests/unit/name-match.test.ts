import { describe, expect, it } from "vitest";
import { nameMatchResult, nameMatchScore, nameTokens, typoSimilarity, typoSimilarityCap } from "@/server/services/identity/name-match";

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
