/**
 * `providers check`: one harmless authenticated call per configured live family (the verification
 * families and payments), so an operator learns before merchants do whether the vendor accepts this
 * server. Each call has the family's deadline but goes around the breaker, the bulkhead and the
 * retries: a check must not open or close a breaker that guards merchants' calls. Nothing is logged;
 * the report carries no credential.
 */
import { settingWarnings, type Config } from "@/server/config";
import { secureIdClients, type SecureIdFamily } from "@/server/providers/cashfree/secure-id";
import { checkSecureIdFamily } from "@/server/providers/cashfree/secure-id-check";
import { setuClients, type SetuFamily } from "@/server/providers/setu/client";
import { checkSetuFamily } from "@/server/providers/setu/check";
import { liveVendorsOf, type LiveVerificationSettings } from "@/server/providers/index";
import { CashfreePgClient } from "@/server/providers/payments/cashfree-pg";
import { checkCashfreePg } from "@/server/providers/payments/cashfree-pg-check";
import type { UpstreamLogger } from "@/server/providers/upstream/client";

/** `not-configured`: the family's provider is `none`, so there is nothing to call (it does not fail the check). */
export type FamilyCheckStatus = "ok" | "misconfigured" | "unreachable" | "not-configured";

export interface FamilyCheck {
  family: SecureIdFamily | "payments";
  /** The vendor checked: every vendor configured for a family is checked, in the order the family tries them. */
  vendor: "cashfree" | "setu" | "none";
  status: FamilyCheckStatus;
  /** The HTTP status and the vendor's error code, or the transport fault; never a credential or a vendor message. */
  detail: string;
  ms: number;
}

export interface ProvidersCheck {
  /** LIVE_VERIFICATION_PROVIDER. */
  provider: Config["liveVerification"]["provider"];
  /** The verification vendor's base URL; null without a provider. */
  baseUrl: string | null;
  payments: { provider: Config["livePayments"]["provider"]; baseUrl: string | null };
  /** Every family checked is ok (true when none is configured). */
  ok: boolean;
  /** The verification families when a verification provider is configured, then payments (always listed). */
  families: FamilyCheck[];
  /** Settings that work but not as meant (live payments on a private APP_URL). */
  warnings: string[];
}

export type ProvidersCheckSettings = Pick<Config, "liveVerification" | "livePayments" | "appUrl">;

const silent: UpstreamLogger = { warn: () => undefined, error: () => undefined };

/** The verification families alone: each family's every vendor, in the order the family tries them. */
export async function checkLiveVerification(settings: LiveVerificationSettings) {
  const vendors = liveVendorsOf(settings);
  const order = (Object.keys(vendors) as SecureIdFamily[]).flatMap((family) => vendors[family].map((vendor) => ({ family, vendor })));
  if (order.length === 0) return { provider: "none" as const, baseUrl: null, ok: true, families: [] as FamilyCheck[] };
  const limits = { timeoutMs: settings.timeoutMs, maxConcurrency: settings.maxConcurrency };
  const cashfree = order.some((o) => o.vendor === "cashfree") ? secureIdClients({ ...settings.cashfree, ...limits }, silent, { listed: false }) : null;
  const setu = order.some((o) => o.vendor === "setu") && settings.setu ? setuClients({ ...settings.setu, ...limits }, silent, { listed: false }) : null;
  const families: FamilyCheck[] = await Promise.all(
    order.map(async ({ family, vendor }) =>
      vendor === "setu" && setu
        ? { vendor, ...(await checkSetuFamily(family as SetuFamily, setu[family as SetuFamily])) }
        : { vendor, ...(await checkSecureIdFamily(family, cashfree![family])) },
    ),
  );
  return {
    provider: settings.provider,
    baseUrl: settings.provider === "cashfree" ? settings.cashfree.baseUrl : null,
    ok: families.every((f) => f.status === "ok"),
    families,
  };
}

async function checkPayments(settings: Config["livePayments"], appUrl: string): Promise<FamilyCheck> {
  if (settings.provider === "none") {
    return {
      family: "payments",
      vendor: "none",
      status: "not-configured",
      detail: "LIVE_PAYMENT_PROVIDER=none: live checkout and refunds answer 503 SERVICE_UNAVAILABLE",
      ms: 0,
    };
  }
  const client = new CashfreePgClient({ ...settings.cashfree, timeoutMs: settings.timeoutMs, maxConcurrency: settings.maxConcurrency }, appUrl, silent, {
    listed: false,
  });
  return { family: "payments", vendor: "cashfree", ...(await checkCashfreePg(client)) };
}

export async function checkProviders(settings: ProvidersCheckSettings): Promise<ProvidersCheck> {
  const { liveVerification: verification, livePayments: payments } = settings;
  const [checked, paymentsFamily] = await Promise.all([checkLiveVerification(verification), checkPayments(payments, settings.appUrl)]);
  const families = [...checked.families, paymentsFamily];
  return {
    provider: checked.provider,
    baseUrl: checked.baseUrl,
    payments: { provider: payments.provider, baseUrl: payments.provider === "none" ? null : payments.cashfree.baseUrl },
    ok: families.every((f) => f.status === "ok" || f.status === "not-configured"),
    families,
    warnings: settingWarnings(settings),
  };
}
