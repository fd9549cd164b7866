import { expect, test, type Page } from "@playwright/test";
import { heading, openCheckout, payByCard, simulateAttempt, statusOf } from "./helpers/checkout";
import { paymentStatus } from "./helpers/db";
import { createCheckout } from "./helpers/merchant";

// Leaving a pending attempt on the hosted page: "Use another method" and "Cancel payment".

const NOTE = "We stopped waiting for that payment. If it still goes through, you won’t be charged twice.";
const UPI_PENDING = "Approve the payment in your UPI app";
// The visible note (the page's screen-reader status line says it too).
const note = (page: Page) => page.getByRole("paragraph").filter({ hasText: NOTE });

/** A UPI collect request to pending@parakh: the sandbox never answers it, so it stays pending. */
async function startPendingCollect(page: Page) {
  await page.getByLabel("Pay by UPI ID").fill("pending@parakh");
  await page.getByRole("button", { name: "Send request for ₹499.00" }).click();
  await expect(heading(page, UPI_PENDING)).toBeVisible();
}

test.describe("leaving a pending attempt", () => {
  test("Use another method after a UPI request that never comes back, then pay by card", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await startPendingCollect(page);

    await page.getByRole("button", { name: "Use another method" }).click();
    await expect(heading(page, "Choose how to pay")).toBeVisible();
    await expect(note(page)).toBeVisible();
    // Not a failure the customer has to read about.
    await expect(heading(page, "Payment failed")).toHaveCount(0);
    expect(paymentStatus(p.paymentId)).toBe("FAILED");

    await payByCard(page, "4111 1111 1111 1111");
    await expect(heading(page, "Payment successful")).toBeVisible();
    await expect(page.locator("dl").last()).toContainText("Visa •••• 1111");

    const s = await statusOf(request, p.paymentId);
    expect(s.status).toBe("SUCCESS");
    expect(s.attempts.map((a) => [a.method, a.status, a.errorCode])).toEqual([
      ["UPI", "ABANDONED", "ATTEMPT_ABANDONED"],
      ["CARD", "SUCCESS", null],
    ]);
  });

  test("the UPI QR: Use another method brings back the method choice, and a late success still pays", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByRole("button", { name: "Show QR code" }).click();
    await expect(page.getByRole("img", { name: "UPI QR code to pay ₹499.00" })).toBeVisible();

    await page.getByRole("button", { name: "Use another method" }).click();
    await expect(heading(page, "Choose how to pay")).toBeVisible();
    await expect(note(page)).toBeVisible();
    const [left] = (await statusOf(request, p.paymentId)).attempts;
    expect(left).toMatchObject({ method: "UPI", status: "ABANDONED" });

    // The customer approved it in the app after all: the payment is paid through that attempt, and the page shows it.
    await simulateAttempt(request, p.paymentId, left!.attemptId, "SUCCESS");
    await expect(heading(page, "Payment successful")).toBeVisible({ timeout: 15_000 });
    const s = await statusOf(request, p.paymentId);
    expect(s.status).toBe("SUCCESS");
    expect(s.attempts).toHaveLength(1);
  });

  test("Cancel payment while the bank is waiting asks first, then cancels", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByRole("tab", { name: /Netbanking/ }).click();
    await page.getByText("HDFC Bank").click();
    await page.getByRole("button", { name: "Continue to HDFC Bank" }).click();
    await expect(page).toHaveURL(new RegExp(`/checkout/${p.paymentId}/bank$`));
    await page.goBack();
    await expect(heading(page, "Waiting for the bank")).toBeVisible();

    await page.getByRole("button", { name: "Cancel payment" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this payment?" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("the money comes back to you automatically");
    await dialog.getByRole("button", { name: "Keep waiting" }).click();
    await expect(dialog).toBeHidden();
    await expect(heading(page, "Waiting for the bank")).toBeVisible();
    expect(paymentStatus(p.paymentId)).toBe("PENDING");

    await page.getByRole("button", { name: "Cancel payment" }).click();
    await dialog.getByRole("button", { name: "Cancel payment" }).click();
    await expect(heading(page, "Payment cancelled")).toBeVisible();
    await expect(dialog).toBeHidden();
    const s = await statusOf(request, p.paymentId);
    expect(s.status).toBe("CANCELLED");
    expect(s.attempts.map((a) => [a.method, a.status])).toEqual([["NETBANKING", "ABANDONED"]]);
    // The bank page has nothing left to approve.
    await page.goto(`/checkout/${p.paymentId}/bank`);
    await expect(heading(page, "Nothing is waiting for approval")).toBeVisible();
  });

  test("Use another method is reached with Tab and works with Enter", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await startPendingCollect(page);
    // The new screen puts focus on its heading; from there the keyboard takes over.
    await expect(heading(page, UPI_PENDING)).toBeFocused();
    const button = page.getByRole("button", { name: "Use another method" });
    for (let i = 0; i < 5 && !(await button.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(button).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(heading(page, "Choose how to pay")).toBeFocused();
    await expect(note(page)).toBeVisible();
    expect((await statusOf(request, p.paymentId)).attempts[0]).toMatchObject({ status: "ABANDONED", errorCode: "ATTEMPT_ABANDONED" });
  });

  test("an attempt that finished meanwhile: the page shows where the payment is, without an error", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await startPendingCollect(page);
    const [pending] = (await statusOf(request, p.paymentId)).attempts;
    // The approval lands just before the customer's click reaches the server.
    await page.route("**/api/trpc/checkout.abandon**", async (route) => {
      await simulateAttempt(request, p.paymentId, pending!.attemptId, "SUCCESS");
      await route.continue();
    });
    await page.getByRole("button", { name: "Use another method" }).click();
    await expect(heading(page, "Payment successful")).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: /\w/ })).toHaveCount(0);
    const s = await statusOf(request, p.paymentId);
    expect(s.status).toBe("SUCCESS");
    expect(s.attempts.map((a) => a.status)).toEqual(["SUCCESS"]);
  });

  test("Cancel payment after the attempt failed meanwhile still cancels, as asked", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await startPendingCollect(page);
    const [pending] = (await statusOf(request, p.paymentId)).attempts;
    await page.route("**/api/trpc/checkout.abandon**", async (route) => {
      await simulateAttempt(request, p.paymentId, pending!.attemptId, "FAILED");
      await route.continue();
    });
    await page.getByRole("button", { name: "Cancel payment" }).click();
    await page.getByRole("dialog", { name: "Cancel this payment?" }).getByRole("button", { name: "Cancel payment" }).click();
    await expect(heading(page, "Payment cancelled")).toBeVisible();
    expect(paymentStatus(p.paymentId)).toBe("CANCELLED");
  });

  test("desktop: the ways out sit under the QR code", async ({ page, request }, testInfo) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByRole("button", { name: "Show QR code" }).click();
    await expect(page.getByRole("button", { name: "Use another method" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Cancel payment" })).toBeVisible();
    const file = testInfo.outputPath("checkout-pending-desktop.png");
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach("pending with ways out, desktop", { path: file, contentType: "image/png" });
  });
});

test.describe("leaving a pending attempt on a phone", () => {
  test.use({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });

  test("the ways out fit a 360 px screen and are easy to tap", async ({ page, request }, testInfo) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await startPendingCollect(page);
    const another = page.getByRole("button", { name: "Use another method" });
    const cancel = page.getByRole("button", { name: "Cancel payment" });
    await expect(another).toBeVisible();
    await expect(cancel).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    const box = (await another.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(40);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    const file = testInfo.outputPath("checkout-pending-phone.png");
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach("pending with ways out at 360 px", { path: file, contentType: "image/png" });

    await another.tap();
    await expect(heading(page, "Choose how to pay")).toBeVisible();
    await expect(note(page)).toBeVisible();
    const chooseFile = testInfo.outputPath("checkout-left-attempt-phone.png");
    await page.screenshot({ path: chooseFile, fullPage: true });
    await testInfo.attach("method choice after leaving, 360 px", { path: chooseFile, contentType: "image/png" });
  });
});
