import crypto from "node:crypto";

/** One-shot: about a third of the CPU of a Hash object (the API key lookup hashes on every request). */
export function sha256Hex(value: string | Buffer): string {
  return crypto.hash("sha256", value, "hex");
}

export function hmacSha256Hex(key: string | Buffer, value: string | Buffer): string {
  return crypto.createHmac("sha256", key).update(value).digest("hex");
}

/** Constant-time string equality (length leaks, content does not). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    crypto.timingSafeEqual(ab, ab);
    return false;
  }
  return crypto.timingSafeEqual(ab, bb);
}

// Keys as KeyObjects, made once per key text (a process has one or two).
const secretKeys = new Map<string, crypto.KeyObject>();
function secretKeyOf(keyBase64: string): crypto.KeyObject {
  let key = secretKeys.get(keyBase64);
  if (!key) secretKeys.set(keyBase64, (key = crypto.createSecretKey(Buffer.from(keyBase64, "base64"))));
  return key;
}

// IVs are drawn from the CSPRNG in blocks, as ids are (one call per 512 encryptions, not one each); a
// block is never reused, so every IV is as fresh as randomBytes(12) alone would give.
const IV_BYTES = 12;
let ivBlock = Buffer.alloc(0);
let ivOffset = 0;
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivBlock.length) {
    ivBlock = crypto.randomBytes(IV_BYTES * 512);
    ivOffset = 0;
  }
  return ivBlock.subarray(ivOffset, (ivOffset += IV_BYTES));
}

/** AES-256-GCM; output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt(plaintext: string, keyBase64: string): string {
  const iv = nextIv();
  const cipher = crypto.createCipheriv("aes-256-gcm", secretKeyOf(keyBase64), iv);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ["v1", iv.toString("base64url"), tag.toString("base64url"), ct.toString("base64url")].join(".");
}

export function decrypt(payload: string, keyBase64: string): string {
  const [version, iv, tag, ct] = payload.split(".");
  if (version !== "v1" || !iv || !tag || ct === undefined) throw new Error("Unrecognised ciphertext");
  const decipher = crypto.createDecipheriv("aes-256-gcm", secretKeyOf(keyBase64), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
}

/** scrypt's cost as log2 N: 15 unless `PASSWORD_HASH_COST` says otherwise (12 to 16). */
export const DEFAULT_PASSWORD_HASH_COST = 15;
// maxmem: room for the largest cost allowed (128 · N · r bytes is 64 MiB at N = 2^16).
const SCRYPT = { r: 8, p: 1, maxmem: 96 * 1024 * 1024, keylen: 32 } as const;

/**
 * Password hash: scrypt with a random salt, self-describing (N, r, p are stored with it), so a hash
 * made at one cost still verifies after the setting changes.
 */
export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  const salt = crypto.randomBytes(16);
  const N = 2 ** cost;
  const key = await scrypt(password, salt, SCRYPT.keylen, { N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT.maxmem });
  return `scrypt$${N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash, ...rest] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash || rest.length) return false;
  const expected = Buffer.from(hash, "base64url");
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  // A malformed stored hash must never verify (an empty key would compare equal to anything).
  if (expected.length < 16 || !Object.values(params).every((v) => Number.isInteger(v) && v > 0)) return false;
  try {
    const key = await scrypt(password, Buffer.from(salt, "base64url"), expected.length, { ...params, maxmem: SCRYPT.maxmem });
    return crypto.timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}

function scrypt(password: string, salt: Buffer, keylen: number, opts: crypto.ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => crypto.scrypt(password.normalize("NFKC"), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));
}
