/**
 * `providers check`: one harmless authenticated call per configured live verification family, so an
 * operator learns before merchants do whether the vendor accepts this server. Each call has the
 * upstream deadline (UPSTREAM_TIMEOUT_MS) but goes around the breaker, the bulkhead and the retries:
 * a check must not open or close a breaker that guards merchants' calls. Nothing is logged; the
 * report carries no credential.
 */
import type { Config } from "@/server/config";
import { secureIdClients, type SecureIdFamily } from "@/server/providers/cashfree/secure-id";
import { checkSecureIdFamily } from "@/server/providers/cashfree/secure-id-check";
import type { UpstreamLogger } from "@/server/providers/upstream/client";

export type FamilyCheckStatus = "ok" | "misconfigured" | "unreachable";

export interface FamilyCheck {
  family: SecureIdFamily;
  status: FamilyCheckStatus;
  /** The HTTP status and the vendor's error code, or the transport fault; never a credential or a vendor message. */
  detail: string;
  ms: number;
}

export interface LiveVerificationCheck {
  provider: Config["liveVerification"]["provider"];
  /** The vendor's base URL; null without a provider. */
  baseUrl: string | null;
  /** Every family checked is ok (true when none is configured). */
  ok: boolean;
  families: FamilyCheck[];
}

const silent: UpstreamLogger = { warn: () => undefined, error: () => undefined };

export async function checkLiveVerification(settings: Config["liveVerification"]): Promise<LiveVerificationCheck> {
  if (settings.provider === "none") return { provider: "none", baseUrl: null, ok: true, families: [] };
  const clients = secureIdClients({ ...settings.cashfree, timeoutMs: settings.timeoutMs, maxConcurrency: settings.maxConcurrency }, silent, { listed: false });
  const families = await Promise.all((Object.keys(clients) as SecureIdFamily[]).map((family) => checkSecureIdFamily(family, clients[family])));
  return { provider: settings.provider, baseUrl: settings.cashfree.baseUrl, ok: families.every((f) => f.status === "ok"), families };
}
