import type { ApiBaseUrls } from "@/lib/api-snippets";
import type { Config } from "@/server/config";

/** The public address of each API family, for the dashboard's ready-to-run examples. */
export function apiBaseUrls(config: Pick<Config, "baseUrl" | "paymentBaseUrl" | "kycBaseUrl">): ApiBaseUrls {
  return { v1: config.baseUrl, payments: config.paymentBaseUrl, kyc: config.kycBaseUrl };
}
