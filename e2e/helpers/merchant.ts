import fs from "node:fs";
import { expect, type APIRequestContext } from "@playwright/test";

/** The demo merchant the e2e server seeds (written by the server, found by global-setup). */
export interface DemoCredentials {
  merchantId: string;
  email: string;
  password: string;
  sandbox: { publicKey: string; secretKey: string; signingSecret: string };
}

function credentialsFile(): string {
  const file = process.env.PARAKH_E2E_DEMO_CREDENTIALS;
  if (!file) throw new Error("PARAKH_E2E_DEMO_CREDENTIALS is not set; run through playwright.config.ts (global-setup sets it)");
  return file;
}

export function demoCredentials(): DemoCredentials {
  return JSON.parse(fs.readFileSync(credentialsFile(), "utf8")) as DemoCredentials;
}

/** The sandbox merchant headers of the payments API. */
export function merchantHeaders(c = demoCredentials()): Record<string, string> {
  return { "x-merchant-id": c.merchantId, "x-api-key": c.sandbox.publicKey, "x-secret-key": c.sandbox.secretKey };
}

export function uniqueOrderId(tag = "E2E"): string {
  return `ORDER_${tag}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
}

export interface CreatedCheckout {
  paymentId: string;
  checkoutUrl: string;
  expiresAt: string;
  merchantOrderId: string;
  amount: string;
  _token: string;
}

/** Creates a sandbox hosted-checkout payment (₹499 unless told otherwise) and returns `data`. */
export async function createCheckout(
  request: APIRequestContext,
  body: { orderId?: string; amount?: string; redirectUrl?: string; description?: string; expiresInMinutes?: number } = {},
): Promise<CreatedCheckout> {
  const res = await request.post("/api/checkout", {
    headers: merchantHeaders(),
    data: { orderId: uniqueOrderId(), amount: "499", ...body },
  });
  const json = await res.json();
  expect(res.status(), JSON.stringify(json)).toBe(200);
  return json.data as CreatedCheckout;
}
