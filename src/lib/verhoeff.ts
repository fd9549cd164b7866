// Verhoeff check digit (used by Aadhaar numbers): catches every single-digit error and every
// transposition of adjacent digits.
/** Multiplication in the dihedral group D5 (0–4 rotations, 5–9 reflections). */
export const D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
/** P[k] is the permutation (0 1 5 8 9 4 2 7)(3 6) applied k times; position i uses P[i % 8]. */
export const P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
/** INV[j] is the inverse of j in D5. */
export const INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];

/** True when the last digit is the Verhoeff check digit of the others. */
export function verhoeffValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let c = 0;
  for (let i = 0; i < digits.length; i++) c = D[c]![P[i % 8]![digits.charCodeAt(digits.length - 1 - i) - 48]!]!;
  return c === 0;
}

/** The check digit to append to `digits` (a non-empty digit string) so that `verhoeffValid` holds. */
export function verhoeffDigit(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new RangeError("Verhoeff input must be digits");
  let c = 0;
  // Positions shift by one: the check digit will take position 0.
  for (let i = 0; i < digits.length; i++) c = D[c]![P[(i + 1) % 8]![digits.charCodeAt(digits.length - 1 - i) - 48]!]!;
  return String(INV[c]!);
}
