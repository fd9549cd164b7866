/**
 * What Setu's data API connectors share: one upstream client per product (each Setu product has its
 * own product instance, sent as `x-product-instance-id` beside the client id and secret), and the
 * reading of Setu's error object, `{ error: { code, title?, detail?, traceId? } }` (Setu's documented
 * error shape; some of its products send `code` at the top level instead). The wire follows Setu's
 * public pages, kept with their addresses in tests/fixtures/setu.
 */
import { UpstreamClient, type UpstreamAnswer, type UpstreamFailure, type UpstreamLogger } from "@/server/providers/upstream/client";
import type { SecureIdClientTuning } from "@/server/providers/cashfree/secure-id";

export type SetuFamily = "pan" | "bank";

export interface SetuSettings {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  panProductInstanceId: string;
  bankProductInstanceId: string;
  timeoutMs: number;
  maxConcurrency: number;
  /** Calls started a second per family (UPSTREAM_MAX_RPS); 0 or absent: no limit. */
  maxRps?: number;
}

export function setuClients(settings: SetuSettings, logger: UpstreamLogger, tuning: SecureIdClientTuning = {}): Record<SetuFamily, UpstreamClient> {
  const client = (family: SetuFamily, productInstanceId: string) =>
    new UpstreamClient({
      family,
      vendor: "setu",
      baseUrl: settings.baseUrl.replace(/\/$/, ""),
      headers: { "x-client-id": settings.clientId, "x-client-secret": settings.clientSecret, "x-product-instance-id": productInstanceId },
      timeoutMs: settings.timeoutMs,
      maxConcurrency: settings.maxConcurrency,
      maxRps: settings.maxRps,
      logger,
      ...tuning,
    });
  return { pan: client("pan", settings.panProductInstanceId), bank: client("bank", settings.bankProductInstanceId) };
}

/** Setu's error code (`error.code`, or a top-level `code`), never its message. */
export function setuErrorCode(body: unknown): string | null {
  if (!body || typeof body !== "object") return null;
  const record = body as { code?: unknown; error?: unknown };
  if (record.error && typeof record.error === "object" && typeof (record.error as { code?: unknown }).code === "string") {
    return (record.error as { code: string }).code;
  }
  return typeof record.code === "string" ? record.code : null;
}

/** Setu's codes that mean Parakh's own set-up is wrong (a missing header, an unknown product instance), not the caller's input. */
const ACCOUNT_PROBLEMS = new Set(["header-not-found", "unauthorised", "forbidden", "path-not-found", "invalid-product-instance"]);

/**
 * A 4xx the connector did not recognise: Parakh's set-up problems mark the family misconfigured;
 * anything else is an answer Parakh cannot use (it is not counted as an outage, and the next vendor is tried).
 */
export function unexpectedSetuRefusal(client: UpstreamClient, answer: UpstreamAnswer): UpstreamFailure {
  const code = setuErrorCode(answer.body);
  if (code !== null && ACCOUNT_PROBLEMS.has(code)) return client.refuseMisconfigured(`HTTP ${answer.status}, ${code}`);
  return client.cannotUse(`The upstream source refused the call (HTTP ${answer.status}${code ? `, ${code}` : ""}).`);
}
