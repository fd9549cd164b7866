import http from "node:http";
import net from "node:net";
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

  test("signing in leaves an HttpOnly device cookie, sent only to the sign-in endpoints, that the next sign-in presents", async ({ page, context }) => {
    const demo = demoCredentials();
    const signIn = async () => {
      await page.goto("/login");
      await page.getByLabel("Email").fill(demo.email);
      await page.getByLabel("Password").fill(demo.password);
      const callback = page.waitForRequest((r) => r.url().includes("/api/auth/callback/merchant"));
      await page.getByRole("button", { name: /sign in/i }).click();
      const sent = await (await callback).allHeaders();
      await page.waitForURL((url) => url.pathname.startsWith("/dashboard"));
      return sent.cookie ?? "";
    };
    expect(await signIn()).not.toContain("parakh_device_");
    const device = (await context.cookies()).filter((c) => c.name.startsWith("parakh_device_"));
    expect(device).toHaveLength(1);
    expect(device[0]).toMatchObject({ path: "/api/auth", httpOnly: true, sameSite: "Lax" });
    expect(device[0]!.name).not.toContain(demo.email.split("@")[0]!);
    expect(device[0]!.expires * 1000 - Date.now()).toBeGreaterThan(170 * 24 * 3600 * 1000);
    expect(await page.evaluate(() => document.cookie)).not.toContain("parakh_device_");
    // Signed out (the device cookie kept), away from the dashboard so it cannot navigate by itself.
    await page.goto("about:blank");
    await context.clearCookies({ name: /next-auth/ });
    expect(await signIn()).toContain(`${device[0]!.name}=${device[0]!.value}`);
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
    const site = await startFramingSite(payment.checkoutUrl);
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

/** Sends raw bytes to the e2e server and collects the answer: until the socket closes, a whole answer has come, or `waitMs` passes. */
function rawExchange(baseURL: string, text: string, waitMs = 3000): Promise<{ answer: string; closed: boolean }> {
  const port = Number(new URL(baseURL).port);
  return new Promise((resolve) => {
    let answer = "";
    const socket = net.connect({ host: "127.0.0.1", port }, () => socket.write(text));
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer, closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on("data", (c) => {
      answer += c.toString();
      // A complete answer: its head, and as many body bytes as it announced.
      const head = answer.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(answer)?.[1] ?? NaN);
      if (head !== -1 && Buffer.byteLength(answer.slice(head + 4)) >= length) done(false);
    });
    socket.on("close", () => done(true));
    socket.on("error", () => undefined);
  });
}

test.describe("requests the pages never see", () => {
  test("an Upgrade request is answered like any request, not held open", async ({ baseURL }) => {
    for (const path of ["/api/health", "/v1/identity/pan/verify", "/favicon.ico", "/checkout/pay_1_nothing"]) {
      const { answer } = await rawExchange(baseURL!, `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
      expect(answer, path).toMatch(/^HTTP\/1\.1 \d{3}/);
    }
  });

  test("odd methods, broken encodings and absolute-form targets get a clear 4xx, never a 500", async ({ baseURL }) => {
    const cases: [string, number][] = [
      ["TRACE /api/trpc/account.me HTTP/1.1", 405],
      ["GET /checkout/%ff HTTP/1.1", 400],
      ["GET /dashboard/logs/% HTTP/1.1", 400],
      ["GET http://evil.example/login HTTP/1.1", 400],
    ];
    for (const [line, status] of cases) {
      const { answer } = await rawExchange(baseURL!, `${line}\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer.slice(0, 12), line).toBe(`HTTP/1.1 ${status}`);
      expect(answer, line).toContain('"success":false');
    }
  });

  test("the dashboard's endpoints take small bodies and small batches only", async ({ request }) => {
    const big = await request.post("/api/trpc/security.requestPasswordReset", {
      headers: { "Content-Type": "application/json", "x-parakh-csrf": "1" },
      data: { email: `${"a".repeat(100_000)}@example.com` },
    });
    expect(big.status()).toBe(413);
    const form = await request.post("/api/auth/callback/merchant", { headers: { "Content-Type": "application/json" }, data: "{" });
    expect(form.status()).toBe(415);
    const calls = Array.from({ length: 11 }, () => "account.me").join(",");
    const input = JSON.stringify(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [i, {}])));
    const batch = await request.get(`/api/trpc/${calls}?batch=1&input=${encodeURIComponent(input)}`);
    expect(batch.status()).toBe(400);
  });
});
