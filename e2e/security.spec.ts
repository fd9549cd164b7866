import http from "node:http";
import { expect, test, type Page } from "@playwright/test";
import { setCheckoutFrameOrigins } from "./helpers/db";
import { createCheckout, demoCredentials } from "./helpers/merchant";

/** Collects Content-Security-Policy violations the page reports (inline scripts without a nonce…). */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    (window as unknown as { __csp: string[] }).__csp = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
}

/** A page on another origin (a loopback port of its own) that frames `src`. */
function startFramingSite(src: string): Promise<{ origin: string; close: () => void }> {
  const server = http.createServer((_req, res) => {
    res.setHeader("Content-Type", "text/html");
    res.end(`<!doctype html><title>Shop</title><iframe id="pay" src="${src}" width="600" height="800"></iframe>`);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() })),
  );
}

test.describe("browser security headers", () => {
  for (const path of ["/login", "/signup", "/docs", "/"]) {
    test(`${path} runs under a nonce CSP, cannot be framed, and reports no violation`, async ({ page }) => {
      const violations = await watchViolations(page);
      const res = await page.goto(path);
      expect(res?.status()).toBe(200);
      const h = res!.headers();
      expect(h["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(h["content-security-policy"]).toContain("object-src 'none'");
      expect(h["x-frame-options"]).toBe("DENY");
      expect(h["x-content-type-options"]).toBe("nosniff");
      expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
      await page.waitForLoadState("networkidle");
      if (path === "/docs") await expect(page.locator(".opblock").first()).toBeVisible();
      expect(await violations()).toEqual([]);
    });
  }

  test("the hosted checkout and the signed-in dashboard work under the CSP with no violation", async ({ page, request }) => {
    const violations = await watchViolations(page);
    const payment = await createCheckout(request);
    await page.goto(new URL(payment.checkoutUrl).pathname);
    await page.getByRole("tab", { name: /Card/ }).click();
    await expect(page.getByLabel("Card number")).toBeVisible();
    const demo = demoCredentials();
    await page.goto("/login");
    await page.getByLabel("Email").fill(demo.email);
    await page.getByLabel("Password").fill(demo.password);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((url) => url.pathname.startsWith("/dashboard"));
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/settings", "/dashboard/logs"]) {
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      await expect(page.getByRole("heading").first()).toBeVisible();
    }
    expect(await violations()).toEqual([]);
  });

  test("every page load gets its own nonce", async ({ request }) => {
    const a = (await request.get("/login")).headers()["content-security-policy"];
    const b = (await request.get("/login")).headers()["content-security-policy"];
    expect(a).not.toBe(b);
  });

  test("the API answers with nosniff and a CSP that runs nothing", async ({ request }) => {
    const res = await request.post("/v1/identity/pan/verify", {
      data: { pan: "ABCPK1234F" },
      headers: { Authorization: `Bearer ${demoCredentials().sandbox.secretKey}` },
    });
    expect(res.status()).toBe(200);
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    expect(res.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  test("a dashboard call with Origin: null or a look-alike origin is refused with 403, not 500", async ({ request, baseURL }) => {
    for (const origin of ["null", `${baseURL}.evil.test`, "http://evil.test"]) {
      const res = await request.post("/api/trpc/account.requestGoLive", {
        headers: { Origin: origin, "x-parakh-csrf": "1", "Content-Type": "application/json" },
        data: {},
      });
      expect(res.status(), origin).toBe(403);
    }
  });

  test("the hosted checkout is framed only by the origins its merchant lists", async ({ page, request }) => {
    const payment = await createCheckout(request);
    const checkoutUrl = new URL(payment.checkoutUrl).pathname;
    const site = await startFramingSite(new URL(checkoutUrl, test.info().project.use.baseURL).toString());
    try {
      // Nobody by default: the browser refuses to render the page inside the shop's frame.
      const denied = await request.get(checkoutUrl);
      expect(denied.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(denied.headers()["x-frame-options"]).toBe("DENY");
      await page.goto(site.origin, { waitUntil: "load" });
      await expect(page.frameLocator("#pay").getByText("Demo Store")).toHaveCount(0);

      setCheckoutFrameOrigins(demoCredentials().merchantId, site.origin);
      const allowed = await request.get(checkoutUrl);
      expect(allowed.headers()["content-security-policy"]).toContain(`frame-ancestors ${site.origin}`);
      expect(allowed.headers()["x-frame-options"]).toBeUndefined();
      await page.goto(site.origin);
      await expect(page.frameLocator("#pay").getByText("Demo Store").first()).toBeVisible();

      // The dashboard never, whatever the merchant lists.
      expect((await request.get("/login")).headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    } finally {
      setCheckoutFrameOrigins(demoCredentials().merchantId, null);
      site.close();
    }
  });
});
