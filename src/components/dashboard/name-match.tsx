import { Badge } from "@/components/ui";
import { nameMatchBand, type NameMatchResult } from "@/lib/name-match";

const BANDS: Record<NameMatchResult, { tone: "green" | "amber" | "red"; label: string }> = {
  MATCH: { tone: "green", label: "Match" },
  PARTIAL: { tone: "amber", label: "Partial" },
  NO_MATCH: { tone: "red", label: "No match" },
};

/**
 * A name-match score with its band, the same on every page (verifications, batches, KYC): a bare
 * "0.00" reads as a figure, "0.00 No match" as the outcome it is. `band` is the stored result when
 * there is one; otherwise it follows from the score.
 */
export function NameMatch({ score, band, prefix }: { score: number | null; band?: NameMatchResult | null; prefix?: string }) {
  if (score === null) return <span className="text-slate-400">—</span>;
  const b = BANDS[band ?? nameMatchBand(score)];
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
      <span className="tabular-nums text-slate-900">
        {prefix}
        {score.toFixed(2)}
      </span>
      <Badge tone={b.tone}>{b.label}</Badge>
    </span>
  );
}
