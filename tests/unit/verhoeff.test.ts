import { describe, expect, it } from "vitest";
import { isValidAadhaar } from "@/lib/aadhaar";
import { D, INV, P, verhoeffDigit, verhoeffValid } from "@/lib/verhoeff";
// Computed by tests/fixtures/verhoeff_vectors.py, an implementation in Python that builds its tables
// from their definitions instead of copying them.
import vectors from "../fixtures/verhoeff-vectors.json";

/** The permutation (0 1 5 8 9 4 2 7)(3 6), written out from its cycles. */
function permutationFromCycles(cycles: number[][]): number[] {
  const p = Array.from({ length: 10 }, (_, i) => i);
  for (const cycle of cycles) cycle.forEach((x, i) => (p[x] = cycle[(i + 1) % cycle.length]!));
  return p;
}

/** D5 multiplication in Verhoeff's labelling: rotations 0–4, reflections 5–9. */
function d5(a: number, b: number): number {
  const mod5 = (n: number) => ((n % 5) + 5) % 5;
  if (a < 5 && b < 5) return mod5(a + b);
  if (a < 5) return 5 + mod5(a + b);
  if (b < 5) return 5 + mod5(a - b);
  return mod5(a - b);
}

describe("Verhoeff tables", () => {
  it("P[k] is the permutation (0 1 5 8 9 4 2 7)(3 6) applied k times, for k = 0…7", () => {
    const p1 = permutationFromCycles([
      [0, 1, 5, 8, 9, 4, 2, 7],
      [3, 6],
    ]);
    let row = Array.from({ length: 10 }, (_, i) => i);
    for (let k = 0; k < 8; k++) {
      expect(P[k], `P[${k}]`).toEqual(row);
      row = row.map((x) => p1[x]!);
    }
    // Its order is 8: an eighth application is the identity again.
    expect(row).toEqual(P[0]);
  });

  it("D is the dihedral group D5 and INV its inverses", () => {
    for (let a = 0; a < 10; a++) for (let b = 0; b < 10; b++) expect(D[a]![b], `D[${a}][${b}]`).toBe(d5(a, b));
    for (let j = 0; j < 10; j++) expect(D[j]![INV[j]!], `INV[${j}]`).toBe(0);
  });
});

describe("Verhoeff against published and independent vectors", () => {
  it("Verhoeff's published examples: 236 has check digit 3 and 2363 is valid; 12345 → 1; 75872 → 2", () => {
    expect(verhoeffDigit("236")).toBe("3");
    expect(verhoeffValid("2363")).toBe(true);
    expect(verhoeffValid("2364")).toBe(false);
    expect(verhoeffDigit("12345")).toBe("1");
    expect(verhoeffValid("123451")).toBe(true);
    expect(verhoeffDigit("75872")).toBe("2");
    expect(verhoeffValid("758722")).toBe(true);
  });

  it(`accepts all ${vectors.valid.length} numbers computed by the Python implementation, and refuses each with its last digit changed`, () => {
    expect(vectors.valid.length).toBeGreaterThanOrEqual(500);
    for (const n of vectors.valid) {
      expect(isValidAadhaar(n), n).toBe(true);
      expect(verhoeffDigit(n.slice(0, 11)), n).toBe(n[11]);
      for (let d = 1; d <= 9; d++) {
        const changed = n.slice(0, 11) + String((Number(n[11]) + d) % 10);
        expect(isValidAadhaar(changed), changed).toBe(false);
      }
    }
  });

  it("refuses 424727073346 (its check digit is 5) and accepts 424727073345", () => {
    expect(isValidAadhaar("424727073346")).toBe(false);
    expect(isValidAadhaar("424727073345")).toBe(true);
  });

  it("the sandbox Aadhaar numbers of docs/kyc.md are valid, and each with a changed last digit is refused", () => {
    for (const n of ["234567890009", "999999990019", "234567899917", "234567899929", "234567899986"]) {
      expect(isValidAadhaar(n), n).toBe(true);
      const changed = n.slice(0, 11) + String((Number(n[11]) + 1) % 10);
      expect(isValidAadhaar(changed), changed).toBe(false);
    }
  });
});
