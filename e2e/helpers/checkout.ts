import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { merchantHeaders } from "./merchant";

/** The page title of a ₹499 checkout of the demo merchant (createCheckout's default amount). */
export const CHECKOUT_TITLE = "Pay ₹499.00 to Demo Store";

/** A card expiry a few years ahead, as typed: "12 / 29". */
export const FUTURE_EXPIRY = `12${String((new Date().getFullYear() + 3) % 100).padStart(2, "0")}`;

export async function openCheckout(page: Page, paymentId: string) {
  const res = await page.goto(`/checkout/${paymentId}`);
  expect(res?.status()).toBe(200);
  await expect(page).toHaveTitle(CHECKOUT_TITLE);
  // A click on the server-rendered page before React hydrates it does nothing; on a loaded machine
  // that gap reached a test's click once. Wait until the scripts have loaded and run.
  await page.waitForLoadState("networkidle");
}

export async function payByCard(page: Page, number: string) {
  await page.getByRole("tab", { name: /Card/ }).click();
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry (MM / YY)").fill(FUTURE_EXPIRY);
  await page.getByLabel("CVV").fill("123");
  await page.getByRole("button", { name: "Pay ₹499.00" }).click();
}

export const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name });

export interface StatusAttempt {
  attemptId: string;
  method: string;
  status: string;
  errorCode: string | null;
}

/** The payment as the merchant's status API reports it. */
export async function statusOf(request: APIRequestContext, paymentId: string): Promise<{ status: string; attempts: StatusAttempt[] }> {
  const res = await request.get(`/api/payments/${paymentId}/status`, { headers: merchantHeaders() });
  const json = await res.json();
  expect(res.status(), JSON.stringify(json)).toBe(200);
  return json.data;
}

/** The sandbox simulation API: reports a result for one attempt of the payment, late or not. */
export async function simulateAttempt(request: APIRequestContext, paymentId: string, attemptId: string, outcome: "SUCCESS" | "FAILED") {
  const res = await request.post(`/api/sandbox/payments/${paymentId}/simulate`, { headers: merchantHeaders(), data: { attemptId, outcome } });
  const json = await res.json();
  expect(res.status(), JSON.stringify(json)).toBe(200);
  return json.data;
}
