// Reads a Prometheus scrape with a parser Parakh did not write (parse-prometheus-text-format, a port
// of the Prometheus Python client's parser), so the tests check the format as Prometheus reads it.
// @ts-expect-error The package ships no types.
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  /** Histograms: cumulative bucket counts by upper bound, the count and the sum. */
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}

export interface Family {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: Sample[];
}

export function parseScrape(text: string): Map<string, Family> {
  const families = parsePrometheusTextFormat(text) as Family[];
  return new Map(families.map((f) => [f.name, f]));
}

const sameLabels = (a: Record<string, string> = {}, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

/** The sample of a family with exactly these labels, or undefined. */
export function sampleOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): Sample | undefined {
  return families.get(name)?.metrics.find((m) => sameLabels(m.labels, labels));
}

/** A counter's or gauge's value with exactly these labels; 0 when the series is absent. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const sample = sampleOf(families, name, labels);
  return sample?.value === undefined ? 0 : Number(sample.value);
}
