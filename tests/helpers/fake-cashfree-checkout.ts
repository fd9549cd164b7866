/**
 * The browser side of the fake Cashfree Payment Gateway, for tests that drive a real browser:
 *
 * - `GET /js/v3/cashfree.js`: a stand-in for Cashfree.js v3 with the documented surface
 *   (`Cashfree({ mode })`, `checkout({ paymentSessionId, redirectTarget })`), which sends the page
 *   to the vendor's hosted checkout by a form POST, as the real script leaves the merchant's page.
 * - `POST /pg/view/sessions/checkout`: a minimal hosted card page for that payment session.
 * - `POST /pg/view/sessions/pay`: takes the test card, records the card payment on the order
 *   (`4000 0000 0000 0002` is declined, any other number pays), sends the vendor's signed webhook to the
 *   order's notify_url and redirects to its return_url, as the vendor does.
 * - `GET /pg/view/redirecttobank/{cf_payment_id}`: the bank's page a netbanking attempt's Order Pay
 *   answer sends the customer to (its `data.url`), where the customer authorises or declines.
 * - `POST /pg/view/redirecttobank/{cf_payment_id}`: the bank's answer ends that payment, the vendor's
 *   signed webhook goes to the order's notify_url and the customer goes back to its return_url.
 * - `POST /__control/settle` `{orderId, outcome}`: a test tells the vendor that the order's pending
 *   payment ended (a UPI QR scanned and approved), and the signed webhook goes out.
 * - `GET /__control/problems`: every request or answer that did not match the vendor's document.
 *
 * Card numbers stay in this fake vendor: it keeps only the last four, like the vendor's own records.
 */
import type http from "node:http";
import type { FakeCashfreePg } from "./fake-cashfree-pg";

const DECLINED_CARD = "4000000000000002";

function html(res: http.ServerResponse, status: number, body: string): true {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Cashfree (test)</title></head><body>${body}</body></html>`,
  );
  return true;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function sdkScript(origin: string): string {
  return `(function () {
  window.Cashfree = function (options) {
    var mode = options && options.mode;
    if (mode !== "sandbox" && mode !== "production") throw new Error("Cashfree: mode must be sandbox or production");
    return {
      checkout: function (o) {
        if (!o || typeof o.paymentSessionId !== "string") return Promise.resolve({ error: { message: "paymentSessionId is required" } });
        var form = document.createElement("form");
        form.method = "POST";
        form.action = ${JSON.stringify(origin)} + "/pg/view/sessions/checkout";
        form.target = o.redirectTarget === "_blank" ? "_blank" : "_self";
        [["payment_session_id", o.paymentSessionId], ["mode", mode]].forEach(function (f) {
          var input = document.createElement("input");
          input.type = "hidden"; input.name = f[0]; input.value = f[1];
          form.appendChild(input);
        });
        document.body.appendChild(form);
        form.submit();
        return Promise.resolve({ redirect: true });
      }
    };
  };
})();`;
}

/** The vendor's bank names for the codes a live page offers (tests/fixtures/cashfree-pg/netbanking-codes.json). */
const BANKS: Record<string, string> = { "3003": "Axis Bank", "3021": "HDFC Bank", "3022": "ICICI Bank" };

/**
 * The bank's page of a netbanking payment (the Order Pay answer's `data.url`): GET asks the customer,
 * POST takes the answer, ends the payment, sends the vendor's webhook and goes back to the return_url.
 */
async function netbankingPage(fake: FakeCashfreePg, method: string, cfPaymentId: string, rawBody: Buffer, res: http.ServerResponse): Promise<true> {
  const order = [...fake.orders.values()].find((o) => o.payments.some((p) => p.cf_payment_id === cfPaymentId));
  const payment = order?.payments.find((p) => p.cf_payment_id === cfPaymentId);
  if (!order || !payment?.payment_method?.netbanking || payment.payment_status !== "PENDING") {
    return html(res, 400, "<h1>This bank session is not valid</h1>");
  }
  const orderId = String(order.entity.order_id);
  const bank = BANKS[String(payment.payment_method.netbanking.netbanking_bank_code)] ?? "Your bank";
  if (method === "GET") {
    return html(
      res,
      200,
      `<main style="font-family:sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem">
  <h1>${escapeHtml(bank)} netbanking (test)</h1>
  <p>Pay ₹${Number(payment.payment_amount).toFixed(2)} for order ${escapeHtml(orderId)}</p>
  <form method="POST"><button type="submit" name="outcome" value="SUCCESS">Authorise payment</button>
  <button type="submit" name="outcome" value="FAILED">Decline</button></form>
</main>`,
    );
  }
  const outcome = new URLSearchParams(rawBody.toString("utf8")).get("outcome") === "SUCCESS" ? "SUCCESS" : "FAILED";
  const webhook = fake.settle(orderId, outcome, { cfPaymentId });
  const meta = order.entity.order_meta as { notify_url: string | null; return_url: string | null };
  if (meta.notify_url) await fake.sendWebhook(meta.notify_url, webhook).catch(() => undefined);
  res.writeHead(303, { location: meta.return_url ?? "/" });
  res.end();
  return true;
}

/** Serves the fake vendor's browser pages on `fake`; `sdkModes` records the mode each checkout was opened in. */
export function serveFakeVendorCheckout(fake: FakeCashfreePg): { sdkModes: string[]; sdkLoads: () => number } {
  const sdkModes: string[] = [];
  let loads = 0;
  const origin = () => new URL(fake.url).origin;

  fake.pages = async (req, res, rawBody) => {
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    if (req.method === "GET" && url.pathname === "/js/v3/cashfree.js") {
      loads++;
      res.writeHead(200, { "content-type": "application/javascript; charset=utf-8", "cache-control": "no-store" });
      res.end(sdkScript(origin()));
      return true;
    }
    if (req.method === "POST" && url.pathname === "/pg/view/sessions/checkout") {
      const form = new URLSearchParams(rawBody.toString("utf8"));
      const sessionId = form.get("payment_session_id") ?? "";
      sdkModes.push(form.get("mode") ?? "");
      const orderId = fake.sessions.get(sessionId);
      const order = orderId ? fake.orders.get(orderId) : undefined;
      if (!order || order.entity.order_status !== "ACTIVE") return html(res, 400, "<h1>This payment session is not valid</h1>");
      return html(
        res,
        200,
        `<main style="font-family:sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem">
  <h1>Cashfree test checkout</h1>
  <p>Pay ₹${Number(order.entity.order_amount).toFixed(2)} for order ${escapeHtml(String(order.entity.order_id))}</p>
  <form method="POST" action="/pg/view/sessions/pay">
    <input type="hidden" name="payment_session_id" value="${escapeHtml(sessionId)}">
    <label>Card number <input name="card_number" inputmode="numeric" autocomplete="off"></label><br>
    <label>Expiry (MM/YY) <input name="card_expiry" autocomplete="off"></label><br>
    <label>CVV <input name="card_cvv" autocomplete="off"></label><br>
    <button type="submit">Pay now</button>
  </form>
</main>`,
      );
    }
    if (req.method === "POST" && url.pathname === "/pg/view/sessions/pay") {
      const form = new URLSearchParams(rawBody.toString("utf8"));
      const orderId = fake.sessions.get(form.get("payment_session_id") ?? "");
      const order = orderId ? fake.orders.get(orderId) : undefined;
      if (!orderId || !order) return html(res, 400, "<h1>This payment session is not valid</h1>");
      const digits = (form.get("card_number") ?? "").replace(/\D/g, "");
      const webhook = fake.payOnCheckoutPage(orderId, digits === DECLINED_CARD ? "FAILED" : "SUCCESS");
      const meta = order.entity.order_meta as { notify_url: string | null; return_url: string | null };
      if (meta.notify_url) await fake.sendWebhook(meta.notify_url, webhook).catch(() => undefined);
      res.writeHead(303, { location: meta.return_url ?? "/" });
      res.end();
      return true;
    }
    const bankPage = /^\/pg\/view\/redirecttobank\/(\d+)$/.exec(url.pathname);
    if (bankPage && (req.method === "GET" || req.method === "POST")) return netbankingPage(fake, req.method, bankPage[1]!, rawBody, res);
    if (req.method === "GET" && url.pathname === "/favicon.ico") {
      // The browser asks on the card page; the vendor's API document has nothing to say about it.
      res.writeHead(204);
      res.end();
      return true;
    }
    if (req.method === "GET" && url.pathname === "/__control/problems") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(fake.problems));
      return true;
    }
    if (req.method === "POST" && url.pathname === "/__control/settle") {
      const { orderId, outcome } = JSON.parse(rawBody.toString("utf8") || "{}") as { orderId?: string; outcome?: "SUCCESS" | "FAILED" };
      const order = orderId ? fake.orders.get(orderId) : undefined;
      if (!orderId || !order) return html(res, 404, "no such order");
      const webhook = fake.settle(orderId, outcome === "FAILED" ? "FAILED" : "SUCCESS");
      const meta = order.entity.order_meta as { notify_url: string | null };
      const sent = meta.notify_url ? await fake.sendWebhook(meta.notify_url, webhook) : null;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ delivered: sent?.status ?? null }));
      return true;
    }
    return false;
  };
  return { sdkModes, sdkLoads: () => loads };
}
