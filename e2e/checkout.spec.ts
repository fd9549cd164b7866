import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { redirectSignature } from "../src/server/services/payments/signature";
import http from "node:http";
import { verifyWebhookSignature } from "../src/server/services/webhooks/signing";
import { FUTURE_EXPIRY, heading, openCheckout, payByCard } from "./helpers/checkout";
import { addWebhookEndpoint, paymentStatus, runExpiryJobNow, setPaymentExpiry } from "./helpers/db";
import { createCheckout, demoCredentials, merchantHeaders, uniqueOrderId } from "./helpers/merchant";
import { startRedirectReceiver } from "./helpers/redirect-receiver";

/** The merchant's webhook endpoint on loopback, recording raw bodies and headers. */
function startWebhookReceiver(): Promise<{ url: string; received: { headers: http.IncomingHttpHeaders; body: string }[]; close: () => void }> {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.end("ok");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/parakh`, received, close: () => server.close() }),
    ),
  );
}

/**
 * A bank refuses, "Try again" comes back with that bank still chosen, the next try succeeds, and the
 * success page's "Returning to … (3 s)" keeps its countdown on one line.
 */
async function netbankingRetryKeepsTheBank(page: Page, request: APIRequestContext) {
  const receiver = await startRedirectReceiver();
  try {
    const p = await createCheckout(request, { redirectUrl: receiver.url });
    await openCheckout(page, p.paymentId);
    await page.getByRole("tab", { name: /Netbanking/ }).click();
    await page.getByText("Kotak Mahindra Bank").click();
    await page.getByRole("button", { name: "Continue to Kotak Mahindra Bank" }).click();
    await page.getByRole("button", { name: "Failure" }).click();
    await expect(heading(page, "Payment failed")).toBeVisible();

    await page.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByRole("tab", { name: /Netbanking/ })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByRole("radio", { name: "Kotak Mahindra Bank" })).toBeChecked();
    await page.getByRole("button", { name: "Continue to Kotak Mahindra Bank" }).click();
    await expect(page).toHaveURL(new RegExp(`/checkout/${p.paymentId}/bank$`));
    await expect(page.getByText("Kotak Mahindra Bank", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Success" }).click();
    await expect(heading(page, "Payment successful")).toBeVisible();
    await expect(page.locator("dl").last()).toContainText("Netbanking · Kotak Mahindra Bank");

    const countdown = page.locator("[data-redirect-countdown]");
    await expect(countdown).toHaveText(/^\(\d\s+s\)$/);
    // One line box at this screen width, and at every narrower width of its box down to 120 px:
    // nowhere can "(3" and "s)" part.
    const lines = await countdown.evaluate((el) => {
      const box = el.closest("div")!;
      const counts = [el.getClientRects().length];
      for (let w = box.clientWidth; w >= 120; w -= 2) {
        box.style.width = `${w}px`;
        counts.push(el.getClientRects().length);
      }
      box.style.width = "";
      return counts;
    });
    expect(new Set(lines)).toEqual(new Set([1]));
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.waitForURL((u) => u.href.startsWith(receiver.url), { timeout: 10_000 });
    expect(receiver.visits.map((q) => q.get("status"))).toEqual(["SUCCESS"]);
  } finally {
    await receiver.close();
  }
}

test.describe("hosted checkout", () => {
  test("shows the merchant, amount, order and a live countdown", async ({ page, request }) => {
    const p = await createCheckout(request, { description: "2 x Masala chai" });
    await openCheckout(page, p.paymentId);
    await expect(page.getByText("Demo Store", { exact: true })).toBeVisible();
    await expect(page.getByText("₹499.00", { exact: true })).toBeVisible();
    await expect(page.getByText(p.merchantOrderId)).toBeVisible();
    await expect(page.getByText("2 x Masala chai")).toBeVisible();
    await expect(page.getByText("Sandbox: a test payment")).toBeVisible();
    await expect(page.getByText("Secured by Parakh")).toBeVisible();
    const countdown = page.locator("time");
    await expect(countdown).toHaveText(/^(29|30):\d\d$/);
    const first = await countdown.textContent();
    await expect(countdown).not.toHaveText(first!, { timeout: 5_000 });
  });

  test("pays by UPI ID success@parakh and shows the receipt", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByLabel("Pay by UPI ID").fill("success@parakh");
    await page.getByRole("button", { name: "Send request for ₹499.00" }).click();
    await expect(heading(page, "Approve the payment in your UPI app")).toBeVisible();
    await expect(page.getByText("We sent a request for ₹499.00 to")).toContainText("success@parakh");

    // The sandbox answers after ~2.5 s; the page polls every 2 s.
    await expect(heading(page, "Payment successful")).toBeVisible({ timeout: 15_000 });
    const receipt = page.locator("dl").last();
    await expect(receipt).toContainText(p.paymentId);
    await expect(receipt).toContainText(p.merchantOrderId);
    await expect(receipt).toContainText("UPI · success@parakh");
    await expect(receipt).toContainText(/Bank reference\s*PRK\w+/);
    await expect(receipt).toContainText(/Paid on.*IST/);
    expect(paymentStatus(p.paymentId)).toBe("SUCCESS");
  });

  test("a declined card fails with its reason, then a retry with another card succeeds", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await payByCard(page, "4000 0000 0000 0002");
    await expect(heading(page, "Payment failed")).toBeVisible();
    // Words a customer can act on; the code is for the merchant.
    await expect(page.getByText("Your card was declined by the bank that issued it.", { exact: true })).toBeVisible();
    await expect(page.getByText("Visa •••• 0002")).toBeVisible();
    await expect(page.getByText(/CARD_DECLINED/)).toHaveCount(0);

    await page.getByRole("button", { name: "Try again" }).click();
    // Back on the method choice with the card tab selected and an empty form.
    await expect(page.getByRole("tab", { name: /Card/ })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByLabel("Card number")).toHaveValue("");
    await payByCard(page, "4111 1111 1111 1111");
    await expect(heading(page, "Payment successful")).toBeVisible();
    await expect(page.locator("dl").last()).toContainText("Visa •••• 1111");

    // Card data is never kept in the browser or put in the address.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
    expect(stored).not.toContain("4111");
    expect(stored).not.toContain("4000");
  });

  test("checks the card on the page before sending it", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    let paySent = false;
    page.on("request", (r) => {
      if (r.url().includes("checkout.pay")) paySent = true;
    });
    await page.getByRole("tab", { name: /Card/ }).click();
    await page.getByLabel("Card number").fill("4111 1111 1111 1112");
    await page.getByRole("button", { name: "Pay ₹499.00" }).click();
    await expect(page.getByText("Check the card number; it isn't valid")).toBeVisible();
    await expect(page.getByText("Enter the expiry as MM / YY")).toBeVisible();
    await expect(page.getByLabel("Card number")).toHaveAttribute("aria-invalid", "true");
    expect(paySent).toBe(false);
  });

  test("checks the CVV's length as its hint says: 3 digits on a Visa's back, 4 on an Amex's front", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    let paySent = false;
    page.on("request", (r) => {
      if (r.url().includes("checkout.pay")) paySent = true;
    });
    await page.getByRole("tab", { name: /Card/ }).click();
    const cvv = page.getByLabel("CVV");
    await page.getByLabel("Card number").fill("4111 1111 1111 1111");
    await page.getByLabel("Expiry (MM / YY)").fill(FUTURE_EXPIRY);
    await expect(page.getByText("3 digits on the back", { exact: true })).toBeVisible();
    await cvv.fill("1234");
    await page.getByRole("button", { name: "Pay ₹499.00" }).click();
    await expect(page.getByText("Enter the 3 digits on the back of the card")).toBeVisible();
    await expect(cvv).toHaveAttribute("aria-invalid", "true");
    await page.getByLabel("Card number").fill("3782 822463 10005");
    await expect(page.getByText("4 digits on the front", { exact: true })).toBeVisible();
    await cvv.fill("123");
    await page.getByRole("button", { name: "Pay ₹499.00" }).click();
    await expect(page.getByText("Enter the 4 digits on the front of the card")).toBeVisible();
    expect(paySent).toBe(false);
  });

  test("UPI QR with the sandbox simulator: failure, then success", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByRole("button", { name: "Show QR code" }).click();
    await expect(heading(page, "Approve the payment in your UPI app")).toBeVisible();
    await expect(page.getByRole("img", { name: "UPI QR code to pay ₹499.00" })).toBeVisible();
    await page.getByRole("button", { name: "Simulate failure" }).click();
    await expect(heading(page, "Payment failed")).toBeVisible();
    await expect(page.getByText("The payment was declined in your UPI app.", { exact: true })).toBeVisible();

    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("button", { name: "Show QR code" }).click();
    await page.getByRole("button", { name: "Simulate success" }).click();
    await expect(heading(page, "Payment successful")).toBeVisible();
    expect(paymentStatus(p.paymentId)).toBe("SUCCESS");
  });

  test("netbanking goes through the mock bank page and back", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByRole("tab", { name: /Netbanking/ }).click();
    await page.getByText("ICICI Bank").click();
    await page.getByRole("button", { name: "Continue to ICICI Bank" }).click();
    await expect(page).toHaveURL(new RegExp(`/checkout/${p.paymentId}/bank$`));
    await expect(page.getByText("ICICI Bank", { exact: true })).toBeVisible();

    // Back to the checkout before deciding: it shows the payment waiting, with the way back to the bank.
    await page.goBack();
    await expect(heading(page, "Waiting for the bank")).toBeVisible();
    await page.getByRole("link", { name: "Go to ICICI Bank" }).click();
    await page.getByRole("button", { name: "Success" }).click();
    await expect(page).toHaveURL(new RegExp(`/checkout/${p.paymentId}$`));
    await expect(heading(page, "Payment successful")).toBeVisible();
    await expect(page.locator("dl").last()).toContainText("Netbanking · ICICI Bank");
  });

  test("netbanking: Try again keeps the chosen bank, and the return countdown stays on one line (1280 px)", async ({ page, request }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await netbankingRetryKeepsTheBank(page, request);
  });

  test("a card without funds says so in words", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await payByCard(page, "4000 0000 0000 9995");
    await expect(heading(page, "Payment failed")).toBeVisible();
    await expect(page.getByText("There isn’t enough balance on this card for the payment.", { exact: true })).toBeVisible();
    await expect(page.getByText(/INSUFFICIENT_FUNDS/)).toHaveCount(0);
  });

  test("netbanking: the bank error clears once a bank is chosen, and a bank's refusal reads as words", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByRole("tab", { name: /Netbanking/ }).click();
    await page.getByRole("button", { name: "Continue to your bank" }).click();
    const error = page.getByRole("alert").filter({ hasText: "Choose your bank to continue." });
    await expect(error).toBeVisible();
    await page.getByText("State Bank of India").click();
    await expect(error).toBeHidden();
    await page.getByRole("button", { name: "Continue to State Bank of India" }).click();
    await expect(page).toHaveURL(new RegExp(`/checkout/${p.paymentId}/bank$`));
    await page.getByRole("button", { name: "Failure" }).click();
    await expect(heading(page, "Payment failed")).toBeVisible();
    await expect(page.getByText("Your bank declined the payment.", { exact: true })).toBeVisible();
    await expect(page.getByText(/PAYMENT_DECLINED/)).toHaveCount(0);
  });

  test("cancel asks first, then cancels", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.getByRole("button", { name: "Cancel payment" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this payment?" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Keep paying" }).click();
    await expect(dialog).toBeHidden();
    expect(paymentStatus(p.paymentId)).toBe("CREATED");

    await page.getByRole("button", { name: "Cancel payment" }).click();
    await dialog.getByRole("button", { name: "Cancel payment" }).click();
    await expect(heading(page, "Payment cancelled")).toBeVisible();
    await expect(page.getByRole("tab")).toHaveCount(0);
    expect(paymentStatus(p.paymentId)).toBe("CANCELLED");
    // A reload shows the same final state.
    await page.reload();
    await expect(heading(page, "Payment cancelled")).toBeVisible();
  });

  test("an expired payment shows the expired state, then returns to the merchant", async ({ page, request }) => {
    const receiver = await startRedirectReceiver();
    try {
      const p = await createCheckout(request, { expiresInMinutes: 5, redirectUrl: receiver.url });
      // Waiting 5 minutes is not an option: move the payment's expiry into the past.
      setPaymentExpiry(p.paymentId, new Date(Date.now() - 60_000));
      await openCheckout(page, p.paymentId);
      await expect(heading(page, "This payment link has expired")).toBeVisible();
      await expect(page.getByRole("tab")).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Cancel payment" })).toHaveCount(0);

      // The sweeper marks it EXPIRED at the time it was scheduled for; bring that job forward too.
      expect(runExpiryJobNow(p.paymentId)).toBe(1);
      await expect.poll(() => paymentStatus(p.paymentId), { timeout: 10_000 }).toBe("EXPIRED");
      await expect(page.getByText("Returning to Demo Store…")).toBeVisible({ timeout: 10_000 });
      await page.waitForURL((u) => u.href.startsWith(receiver.url), { timeout: 10_000 });
      const q = receiver.visits.at(-1)!;
      expect(q.get("status")).toBe("EXPIRED");
      expect(q.get("signature")).toBe(redirectSignature(demoCredentials().sandbox.signingSecret, p.merchantOrderId, p.paymentId, "EXPIRED"));
    } finally {
      await receiver.close();
    }
  });

  test("success returns to the merchant with a signature that verifies, and the webhook arrives signed", async ({ page, request }) => {
    const receiver = await startRedirectReceiver();
    const hooks = await startWebhookReceiver();
    addWebhookEndpoint(demoCredentials().merchantId, hooks.url, "payment.success");
    try {
      const orderId = uniqueOrderId("REDIRECT");
      const p = await createCheckout(request, { orderId, redirectUrl: receiver.url });
      await openCheckout(page, p.paymentId);
      await payByCard(page, "4111 1111 1111 1111");
      await expect(heading(page, "Payment successful")).toBeVisible();
      await expect(page.getByText("Returning to Demo Store…")).toBeVisible();
      await expect(page.getByRole("link", { name: "Continue now" })).toHaveAttribute("href", new RegExp(`^${receiver.url}\\?`));
      await page.waitForURL((u) => u.href.startsWith(receiver.url), { timeout: 10_000 });

      expect(receiver.visits).toHaveLength(1);
      const q = receiver.visits[0]!;
      expect(q.get("paymentId")).toBe(p.paymentId);
      expect(q.get("orderId")).toBe(orderId);
      expect(q.get("status")).toBe("SUCCESS");
      const signature = q.get("signature")!;
      expect(signature).toBe(redirectSignature(demoCredentials().sandbox.signingSecret, orderId, p.paymentId, "SUCCESS"));

      const verify = await request.post("/api/payments/verify", {
        headers: merchantHeaders(),
        data: { paymentId: p.paymentId, orderId, status: "SUCCESS", signature },
      });
      const body = await verify.json();
      expect(verify.status(), JSON.stringify(body)).toBe(200);
      expect(body.data.verified).toBe(true);

      await expect.poll(() => hooks.received.find((h) => h.body.includes(p.paymentId)), { timeout: 10_000 }).toBeTruthy();
      const hook = hooks.received.find((h) => h.body.includes(p.paymentId))!;
      const event = JSON.parse(hook.body);
      expect(event).toMatchObject({
        type: "payment.success",
        mode: "sandbox",
        data: { payment: { paymentId: p.paymentId, status: "SUCCESS", merchantOrderId: orderId } },
      });
      expect(hook.headers["x-webhook-id"]).toBe(event.id);
      expect(verifyWebhookSignature(demoCredentials().sandbox.signingSecret, String(hook.headers["x-webhook-signature"]), hook.body)).toBe(true);
    } finally {
      await receiver.close();
      hooks.close();
    }
  });

  test("a forged token is refused with a helpful message", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    await page.route("**/api/trpc/checkout.pay**", (route) => {
      const body = (route.request().postData() ?? "").replace(/"token":"[^"]+"/, '"token":"ct1.zzzzzz.forged"');
      return route.continue({ postData: body });
    });
    await page.getByLabel("Pay by UPI ID").fill("success@parakh");
    await page.getByRole("button", { name: "Send request for ₹499.00" }).click();
    await expect(page.getByText(/This checkout link is not valid/)).toBeVisible();
    expect(paymentStatus(p.paymentId)).toBe("CREATED");
  });

  test("an unknown payment id answers 404 with a not-found page", async ({ page, request }) => {
    const res = await request.get("/checkout/pay_does_not_exist");
    expect(res.status()).toBe(404);
    const nav = await page.goto("/checkout/pay_does_not_exist");
    expect(nav?.status()).toBe(404);
    await expect(heading(page, "We couldn't find this payment")).toBeVisible();
  });

  test("the method tabs work from the keyboard", async ({ page, request }) => {
    const p = await createCheckout(request);
    await openCheckout(page, p.paymentId);
    const upi = page.getByRole("tab", { name: /UPI/ });
    await upi.focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: /Card/ })).toBeFocused();
    await expect(page.getByRole("tab", { name: /Card/ })).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("End");
    await expect(page.getByRole("tab", { name: /Netbanking/ })).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("Home");
    await expect(upi).toBeFocused();
    // Only the selected tab is in the Tab order; the next stop is inside the panel.
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Tab");
    await expect(page.getByLabel("Card number")).toBeFocused();
  });
});

test.describe("hosted checkout on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("netbanking: Try again keeps the chosen bank, and the return countdown stays on one line (390 px)", async ({ page, request }) => {
    await netbankingRetryKeepsTheBank(page, request);
  });

  test("fits a 390 px screen and leads with the UPI app button", async ({ page, request }, testInfo) => {
    const p = await createCheckout(request, { description: "2 x Masala chai" });
    await openCheckout(page, p.paymentId);
    const appButton = page.getByRole("link", { name: "Pay ₹499.00 with UPI app" });
    await expect(appButton).toBeVisible();
    await expect(appButton).toHaveAttribute(
      "href",
      new RegExp(`^upi://pay\\?pa=[^&]+&pn=Demo%20Store&am=499\\.00&cu=INR&tn=${p.merchantOrderId}&tr=${p.paymentId}$`),
    );
    await expect(page.getByRole("button", { name: "Show QR code" })).toBeHidden();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Netbanking's bank badges hold their short names without spilling over.
    await page.getByRole("tab", { name: /Netbanking/ }).click();
    const badges = page.locator("[data-bank-badge]");
    await expect(badges).toHaveText(["HDFC", "ICICI", "SBI", "Axis", "Kotak", "PNB"]);
    for (const overflow of await badges.evaluateAll((els) => els.map((el) => el.scrollWidth - el.clientWidth))) expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.getByRole("tab", { name: /UPI/ }).click();
    const file = testInfo.outputPath("checkout-phone.png");
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach("checkout at 390 px", { path: file, contentType: "image/png" });
  });
});
