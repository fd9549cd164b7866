import crypto from "node:crypto";

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

// Digits in byte order, so fixed-width numbers sort as text the way they sort as numbers.
const SORTABLE_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * An id whose text sorts by creation time (8 characters of milliseconds, then 12 random ≈ 71 bits),
 * for append-heavy tables: each new row goes at the end of the primary-key index rather than on a
 * random page of it.
 */
export function newSortableId(prefix: IdPrefix, now = Date.now()): string {
  let time = "";
  for (let t = now, i = 0; i < 8; i++, t = Math.floor(t / 62)) time = SORTABLE_DIGITS[t % 62] + time;
  return `${prefix}_${time}${randomToken(12)}`;
}

/** `pay_<ms timestamp>_<random>`, the payment id format of the original interface. */
export function newPaymentId(): string {
  return `pay_${Date.now()}_${randomToken(14)}`;
}
