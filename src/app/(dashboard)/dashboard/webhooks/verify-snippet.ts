// Kept apart from the component so a test can run the snippet against the server's signing.

/** The receiver's check, in Node: the same rule as the server's signing. */
export const VERIFY_SNIPPET = `import crypto from "node:crypto";

// header: the X-Webhook-Signature value, "t=<unix seconds>,v1=<hex>[,v1=<hex>]"
// rawBody: the request body exactly as received (not re-serialised JSON)
// secret:  your signing secret, the whole "whsec_…" string
export function verifyParakhSignature(header, rawBody, secret, toleranceSeconds = 300) {
  const [t, ...sigs] = header.split(",").map((part) => part.trim());
  const timestamp = Number(t.startsWith("t=") ? t.slice(2) : NaN);
  if (!Number.isInteger(timestamp)) return false;
  // Reject old (replayed) or far-future deliveries.
  if (Math.abs(Math.floor(Date.now() / 1000) - timestamp) > toleranceSeconds) return false;
  const expected = crypto.createHmac("sha256", secret).update(\`\${timestamp}.\${rawBody}\`).digest();
  // Two v1 values are sent while a secret rotation is in progress: accept either.
  return sigs.some((sig) => {
    const hex = sig.startsWith("v1=") ? sig.slice(3) : "";
    return /^[0-9a-f]{64}$/.test(hex) && crypto.timingSafeEqual(Buffer.from(hex, "hex"), expected);
  });
}

// Express: keep the raw body for the check.
app.post("/webhooks/parakh", express.raw({ type: "application/json" }), async (req, res) => {
  const rawBody = req.body.toString("utf8");
  if (!verifyParakhSignature(req.get("X-Webhook-Signature") ?? "", rawBody, process.env.PARAKH_SIGNING_SECRET)) {
    return res.sendStatus(400);
  }
  const event = JSON.parse(rawBody);
  // Deliveries are at-least-once: skip an event id you have already handled.
  if (await alreadyHandled(event.id)) return res.sendStatus(200);
  await handle(event); // e.g. event.type === "payment.success" → event.data.payment
  res.sendStatus(200);
});`;
