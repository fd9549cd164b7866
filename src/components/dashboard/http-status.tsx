import { Badge } from "@/components/ui";

/** An HTTP status code, coloured by its class (2xx green, 4xx amber, 5xx red). */
export function HttpStatusBadge({ status }: { status: number }) {
  const tone = status >= 500 ? "red" : status >= 400 ? "amber" : status >= 200 && status < 300 ? "green" : "slate";
  return (
    <Badge tone={tone}>
      <span className="font-mono tabular-nums">{status}</span>
    </Badge>
  );
}

export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(1)} ms`;
}
