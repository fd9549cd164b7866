import { expect, type Page } from "@playwright/test";
import { apiKeysOf, merchantIdByEmail } from "./db";

/**
 * Signs a new merchant up through the form and reads the sandbox keys the dialog shows once (the
 * merchant id and public key from the database). The dialog is left open for the caller.
 */
export async function signUpThroughForm(page: Page, merchant: { name: string; email: string; password: string }) {
  await page.goto("/signup");
  await page.getByLabel("Business name").fill(merchant.name);
  await page.getByLabel("Work email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: "Create account" }).click();
  const dialog = page.getByRole("dialog", { name: "Your sandbox API key" });
  await expect(dialog).toBeVisible();
  const secretKey = (await dialog.getByText(/^sk_test_/).textContent())!.trim();
  const merchantId = merchantIdByEmail(merchant.email);
  return { dialog, merchantId, publicKey: apiKeysOf(merchantId)[0]!.publicKey, secretKey };
}
