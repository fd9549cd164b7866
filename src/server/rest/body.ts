import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/server/errors";

/** Requests past this are not even drained: the connection is closed after the 413. */
export const DRAIN_LIMIT = 64 * 1024 * 1024;
/** How long the unread body of a refused request may keep arriving (and be dropped) before the answer. */
const LINGER_MS = 10_000;
/** No operation's body nests this deep; deeper JSON only serves to exhaust the stack downstream. */
const MAX_JSON_DEPTH = 32;

/** A body that cannot be read whole (too large, cut off, broken framing): the connection is closed after the answer. */
export class BodyError extends AppError {}

function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(v as object)) stack.push([child, depth + 1]);
  }
  return false;
}

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const media = header.split(";", 1)[0]!.trim().toLowerCase();
  return media === "application/json";
}

export function hasUnreadBody(req: IncomingMessage): boolean {
  const length = Number(req.headers["content-length"] ?? 0);
  const hasBody = req.headers["transfer-encoding"] !== undefined || (Number.isFinite(length) && length > 0);
  return hasBody && !req.readableEnded && !req.destroyed;
}

/**
 * Before refusing a request whose body was never read: a body up to `limit` is read and dropped
 * first, so the client, still sending, gets to read the answer (closing under a sender makes its
 * kernel reset the connection, and the answer can be lost with it). Nothing is kept. A larger body,
 * or one still arriving after LINGER_MS, is answered at once and the connection closed.
 */
export function afterUnreadBody(req: IncomingMessage, res: ServerResponse, limit: number, answer: () => void) {
  const declared = Number(req.headers["content-length"]);
  let answered = false;
  const answerOnce = (close: boolean) => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    if (close) res.setHeader("Connection", "close");
    answer();
  };
  const timer = setTimeout(() => answerOnce(true), LINGER_MS).unref();
  if (Number.isFinite(declared) && declared > limit) return answerOnce(true);
  let seen = 0;
  req.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) answerOnce(true);
  });
  req.once("end", () => answerOnce(false));
  req.once("close", () => answerOnce(true));
  req.resume();
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new BodyError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes.`);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        if (size > DRAIN_LIMIT) req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => (over ? reject(tooLarge()) : resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))));
    // The client went away or sent broken framing (bad chunk sizes): its fault, not ours.
    const incomplete = () => reject(new BodyError("INVALID_JSON", "The request body ended early or was malformed."));
    req.on("aborted", incomplete);
    req.on("error", incomplete);
  });
}

/** The body's JSON value, undefined when empty; INVALID_JSON when it is not JSON. */
export function parseJson(raw: Buffer): unknown {
  try {
    return raw.length === 0 ? undefined : JSON.parse(raw.toString("utf8"));
  } catch {
    throw new AppError("INVALID_JSON");
  }
}

/** A JSON object, as every operation takes; anything else is refused with its code. */
export function asJsonObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AppError("VALIDATION_ERROR", "The request body must be a JSON object.");
  if (nestedDeeperThan(body, MAX_JSON_DEPTH)) throw new AppError("VALIDATION_ERROR", `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  return body as Record<string, unknown>;
}

/** Query parameters as strings, a repeated one as a list of them. */
export function queryInput(url: string | undefined): Record<string, string | string[]> {
  const q = url?.indexOf("?") ?? -1;
  const out: Record<string, string | string[]> = {};
  if (q === -1) return out;
  for (const [key, value] of new URLSearchParams(url!.slice(q + 1))) {
    const prior = out[key];
    out[key] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  return out;
}
