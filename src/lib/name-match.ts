/** The name-match bands of B3, browser-safe: the API's name_match_result and every dashboard page's label. */

export const NAME_MATCH_RESULTS = ["MATCH", "PARTIAL", "NO_MATCH"] as const;
export type NameMatchResult = (typeof NAME_MATCH_RESULTS)[number];

/** MATCH ≥ 90, PARTIAL 70–89.99, NO_MATCH < 70. */
export function nameMatchBand(score: number): NameMatchResult {
  if (score >= 90) return "MATCH";
  if (score >= 70) return "PARTIAL";
  return "NO_MATCH";
}
