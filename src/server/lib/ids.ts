import crypto from "node:crypto";
import { redactString } from "@/server/services/audit/redact";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// Random bytes are drawn from the CSPRNG in blocks: one syscall serves hundreds of ids.
const POOL_SIZE = 8192;
let pool = Buffer.alloc(0);
let offset = 0;

function nextByte(): number {
  if (offset >= pool.length) {
    pool = crypto.randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++]!;
}

/** CSPRNG string over [A-Za-z0-9]; 16 chars ≈ 95 bits. Rejection sampling keeps it unbiased. */
export function randomToken(length = 16): string {
  let out = "";
  while (out.length < length) {
    const b = nextByte();
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export type IdPrefix =
  | "mer"
  | "key"
  | "sig"
  | "wl"
  | "adm"
  | "idem"
  | "aud"
  | "ver"
  | "att"
  | "kyc_req"
  | "kyc_txn"
  | "batch"
  | "evt"
  | "req"
  | "job"
  | "whe"
  | "del"
  | "led"
  | "wal"
  | "opa"
  | "rc"
  | "eml"
  | "prt"
  | "hold"
  | "rfnd"
  | "pwh";

export function newId(prefix: IdPrefix, length = 16): string {
  return `${prefix}_${randomToken(length)}`;
}

/** Base 62 digits in ASCII order, so that text comparison orders the numbers. */
const ORDERED_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62^7 ms is about 111 years from 1970: seven digits hold any time until 2081. */
const TIME_DIGITS = 7;

/**
 * `<prefix>_<16 alphanumerics>` like newId, but the first 7 are the time `at` (ms, base 62 in
 * ASCII order) and the other 9 random (53 bits): ids made one after another sort together, so
 * rows inserted in bulk extend the end of their primary-key index rather than touch one page of it
 * per row.
 */
export function newTimeOrderedId(prefix: IdPrefix, at = Date.now()): string {
  let time = "";
  for (let n = Math.floor(at), k = 0; k < TIME_DIGITS; k++, n = Math.floor(n / 62)) time = ORDERED_DIGITS[n % 62] + time;
  return `${prefix}_${time}${randomToken(16 - TIME_DIGITS)}`;
}

/** `pay_<ms timestamp>_<random>`, the payment id format of the original interface. */
export function newPaymentId(): string {
  return `pay_${Date.now()}_${randomToken(14)}`;
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A sane client-supplied X-Request-Id is echoed; otherwise a fresh `req_…`. One that holds a card
 * or Aadhaar number or a secret key is replaced too: the id is stored and shown as it is.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  if (typeof header === "string" && CLIENT_REQUEST_ID.test(header) && redactString(header) === header) return header;
  return newId("req");
}
