import http from "node:http";
import https from "node:https";

/** A delivery attempt's one deadline: connect, headers and the body as far as it is read. */
export const DELIVERY_TIMEOUT_MS = 5_000;
/** At most this much of an answer's body is read; then the socket is closed. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
const EXCERPT_CHARS = 500;
/** Bytes kept for the excerpt: enough for EXCERPT_CHARS characters of UTF-8. */
const EXCERPT_BYTES = EXCERPT_CHARS * 4;

export interface SendResult {
  statusCode: number | null;
  excerpt: string | null;
  /** Set when the answer did not come whole (timeout, socket error); the status code may still be set. */
  error: string | null;
  latencyMs: number;
  /** Body bytes read, at most MAX_RESPONSE_BYTES. */
  bytesRead: number;
}

/**
 * One POST to a webhook endpoint, connecting to the address that passed the SSRF check.
 *
 * An answer is its status and a body of at most 64 KiB, all within `timeoutMs` of `startedAt`
 * (default: the call; a caller that looked the name up first passes when it began). A longer body
 * is not read past 64 KiB: the socket is closed and `error` says so, so a receiver that streams
 * cannot make us read more. Past the deadline the socket is closed too. Either way the status code
 * is kept when headers had come, and a 2xx that comes with an error is not an answer.
 */
export function postWebhook(
  url: URL,
  target: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  { timeoutMs = DELIVERY_TIMEOUT_MS, startedAt: started = performance.now() }: { timeoutMs?: number; startedAt?: number } = {},
): Promise<SendResult> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    let bytesRead = 0;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const finish = (error: string | null, close: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // A socket left mid-answer cannot be reused: close it, and nothing more is read from it.
      if (close) req.destroy();
      const text = Buffer.concat(kept).toString("utf8").slice(0, EXCERPT_CHARS);
      resolve({ statusCode, excerpt: text || null, error, latencyMs: Math.round(performance.now() - started), bytesRead });
    };
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...headers, "Content-Length": Buffer.byteLength(body) },
        // Connect to the address that passed the SSRF check, never a fresh DNS answer. Node asks for
        // every address (`all`) when it may try several families; the answer is then a list.
        lookup: (_host, opts, cb) => {
          if (opts.all) (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
          else (cb as (e: null, a: string, f: number) => void)(null, target.address, target.family);
        },
        servername: url.hostname,
      },
      (res) => {
        statusCode = res.statusCode ?? null;
        res.on("data", (chunk: Buffer) => {
          if (settled) return;
          const over = bytesRead + chunk.length > MAX_RESPONSE_BYTES;
          const part = over ? chunk.subarray(0, MAX_RESPONSE_BYTES - bytesRead) : chunk;
          bytesRead += part.length;
          if (keptBytes < EXCERPT_BYTES) {
            kept.push(part.subarray(0, EXCERPT_BYTES - keptBytes));
            keptBytes += Math.min(part.length, EXCERPT_BYTES - keptBytes);
          }
          if (over) finish(`the answer's body is over ${MAX_RESPONSE_BYTES / 1024} KiB (not read further)`, true);
        });
        res.on("end", () => finish(null, false));
        res.on("error", (e) => finish(e.message, true));
        // Closed without an end: the receiver hung up mid-body.
        res.on("close", () => finish("the connection closed before the answer was complete", true));
      },
    );
    // One timer for the whole attempt, unlike a socket timeout that a byte now and then keeps alive.
    const deadline = setTimeout(() => finish(`timed out after ${timeoutMs} ms`, true), Math.max(0, started + timeoutMs - performance.now()));
    req.on("error", (e) => finish(e.message, true));
    req.end(body);
  });
}
