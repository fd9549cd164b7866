import type { ApiBaseUrls } from "@/lib/api-snippets";

/** The public address of each API family (settings API_BASE_URL, PAYMENT_BASE_URL, KYC_BASE_URL), for the dashboard's ready-to-run examples. */
export function apiBaseUrls(config: { baseUrl: string; paymentBaseUrl: string; kycBaseUrl: string }): ApiBaseUrls {
  return { v1: config.baseUrl, payments: config.paymentBaseUrl, kyc: config.kycBaseUrl };
}
