import http from "node:http";
import https from "node:https";

/** A merchant's endpoint gets this long to answer (then the attempt fails). */
export const DELIVERY_TIMEOUT_MS = 5_000;
const EXCERPT_CHARS = 500;

export interface SendResult {
  statusCode: number | null;
  excerpt: string | null;
  error: string | null;
  latencyMs: number;
}

/** One POST to a webhook endpoint, connecting to the address that passed the SSRF check. */
export function postWebhook(url: URL, target: { address: string; family: 4 | 6 }, headers: Record<string, string>, body: string): Promise<SendResult> {
  const started = performance.now();
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const finish = (r: Omit<SendResult, "latencyMs">) => resolve({ ...r, latencyMs: Math.round(performance.now() - started) });
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...headers, "Content-Length": Buffer.byteLength(body) },
        // Connect to the address that passed the SSRF check, never a fresh DNS answer.
        lookup: (_host, _opts, cb) => (cb as (e: null, a: string, f: number) => void)(null, target.address, target.family),
        timeout: DELIVERY_TIMEOUT_MS,
        servername: url.hostname,
      },
      (res) => {
        let excerpt = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          if (excerpt.length < EXCERPT_CHARS) excerpt += c;
        });
        res.on("end", () => finish({ statusCode: res.statusCode ?? null, excerpt: excerpt.slice(0, EXCERPT_CHARS) || null, error: null }));
        res.on("error", (e) => finish({ statusCode: res.statusCode ?? null, excerpt: null, error: e.message }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`timed out after ${DELIVERY_TIMEOUT_MS} ms`)));
    req.on("error", (e) => finish({ statusCode: null, excerpt: null, error: e.message }));
    req.end(body);
  });
}
