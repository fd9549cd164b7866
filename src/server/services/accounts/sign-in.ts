import type { Db } from "@/server/db/client";
import { decrypt, hashPassword, sha256Hex, verifyPassword } from "@/server/lib/crypto";
import { getConfig } from "@/server/config";
import { matchTotpStep } from "@/server/services/accounts/totp";

/** Failures before each further attempt is slowed down, and before the account locks. */
export const SLOW_DOWN_AFTER = 3;
export const LOCK_AFTER = 5;
export const LOCK_MINUTES = 15;
const IP_WINDOW_MS = 15 * 60 * 1000;
const IP_MAX_FAILURES = 30;

export type SignInFailure = "INVALID_CREDENTIALS" | "ACCOUNT_LOCKED" | "TOTP_REQUIRED" | "TOTP_INVALID" | "TOO_MANY_ATTEMPTS";

export class SignInError extends Error {
  constructor(readonly code: SignInFailure) {
    super(code);
  }
}

export interface SignedIn {
  id: string;
  email: string;
  name: string;
  role: "merchant" | "admin";
}

const ipFailures = new Map<string, { count: number; since: number }>();

function ipBlocked(ip: string, now: number): boolean {
  const e = ipFailures.get(ip);
  return !!e && now - e.since < IP_WINDOW_MS && e.count >= IP_MAX_FAILURES;
}

function noteIpFailure(ip: string, now: number) {
  const e = ipFailures.get(ip);
  if (!e || now - e.since >= IP_WINDOW_MS) ipFailures.set(ip, { count: 1, since: now });
  else e.count++;
  if (ipFailures.size > 50_000) ipFailures.clear();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A real hash to verify against when the email is unknown, so timing does not reveal accounts.
let dummyHash: Promise<string> | undefined;

interface Account {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  failedLogins: number;
  lockedUntil: Date | null;
  totpEnabled?: boolean;
  totpSecretEnc?: string | null;
  totpLastStep?: number | null;
}

interface AccountStore {
  find(email: string): Promise<Account | null>;
  recordFailure(id: string, lockUntil: Date | null): Promise<number>;
  reset(id: string): Promise<void>;
  useRecoveryCode?(id: string, code: string): Promise<boolean>;
  /** Records the accepted TOTP step only if it is newer than the last one (false = replay). */
  claimTotpStep?(id: string, step: number): Promise<boolean>;
}

async function signIn(
  store: AccountStore,
  role: SignedIn["role"],
  input: { email: string; password: string; code?: string | null },
  ip: string,
): Promise<SignedIn> {
  const now = Date.now();
  if (ipBlocked(ip, now)) throw new SignInError("TOO_MANY_ATTEMPTS");
  const email = input.email.trim().toLowerCase();
  const account = email.length <= 254 ? await store.find(email) : null;
  if (account?.lockedUntil && account.lockedUntil.getTime() > now) throw new SignInError("ACCOUNT_LOCKED");

  dummyHash ??= hashPassword("parakh-dummy-password");
  const passwordOk = await verifyPassword(input.password, account?.passwordHash ?? (await dummyHash));
  const fail = async (code: SignInFailure): Promise<never> => {
    noteIpFailure(ip, now);
    if (account) {
      const failures = account.failedLogins + 1;
      const locks = failures >= LOCK_AFTER;
      await store.recordFailure(account.id, locks ? new Date(now + LOCK_MINUTES * 60_000) : null);
      if (locks) throw new SignInError("ACCOUNT_LOCKED");
      if (failures >= SLOW_DOWN_AFTER) await sleep(500 * (failures - SLOW_DOWN_AFTER + 1));
    }
    throw new SignInError(code);
  };
  if (!account || !passwordOk) return fail("INVALID_CREDENTIALS");

  if (account.totpEnabled && account.totpSecretEnc) {
    const code = input.code?.trim().replace(/\s+/g, "") ?? "";
    if (!code) throw new SignInError("TOTP_REQUIRED");
    const secret = decrypt(account.totpSecretEnc, getConfig().secrets.encryptionKey);
    let ok: boolean;
    if (/^\d{6}$/.test(code)) {
      const step = matchTotpStep(secret, code);
      ok = step !== null && (await (store.claimTotpStep?.(account.id, step) ?? true));
    } else {
      ok = await (store.useRecoveryCode?.(account.id, code.toLowerCase()) ?? false);
    }
    if (!ok) return fail("TOTP_INVALID");
  }
  if (account.failedLogins > 0 || account.lockedUntil) await store.reset(account.id);
  return { id: account.id, email: account.email, name: account.name, role };
}

export function signInMerchant(db: Db, input: { email: string; password: string; code?: string | null }, ip: string) {
  return signIn(
    {
      find: (email) => db.merchant.findUnique({ where: { email } }),
      recordFailure: async (id, lockUntil) =>
        (await db.merchant.update({ where: { id }, data: { failedLogins: { increment: 1 }, ...(lockUntil ? { lockedUntil: lockUntil, failedLogins: 0 } : {}) } })).failedLogins,
      reset: async (id) => {
        await db.merchant.update({ where: { id }, data: { failedLogins: 0, lockedUntil: null } });
      },
      claimTotpStep: async (id, step) => {
        // Conditional update: two sign-ins with the same code cannot both win.
        const res = await db.merchant.updateMany({ where: { id, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] }, data: { totpLastStep: step } });
        return res.count === 1;
      },
      useRecoveryCode: async (id, code) => {
        const res = await db.recoveryCode.updateMany({ where: { merchantId: id, codeHash: sha256Hex(code), usedAt: null }, data: { usedAt: new Date() } });
        return res.count === 1;
      },
    },
    "merchant",
    input,
    ip,
  );
}

export function signInAdmin(db: Db, input: { email: string; password: string }, ip: string) {
  return signIn(
    {
      find: async (email) => {
        const a = await db.adminUser.findUnique({ where: { email } });
        return a ? { ...a, name: a.email } : null;
      },
      recordFailure: async (id, lockUntil) =>
        (await db.adminUser.update({ where: { id }, data: { failedLogins: { increment: 1 }, ...(lockUntil ? { lockedUntil: lockUntil, failedLogins: 0 } : {}) } })).failedLogins,
      reset: async (id) => {
        await db.adminUser.update({ where: { id }, data: { failedLogins: 0, lockedUntil: null } });
      },
    },
    "admin",
    input,
    ip,
  );
}
