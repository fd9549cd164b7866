import type { Db } from "@/server/db/client";
import { decrypt, hashPassword, sha256Hex, verifyPassword } from "@/server/lib/crypto";
import { getConfig, passwordHashCost } from "@/server/config";
import { matchTotpStep } from "@/server/services/accounts/totp";
import {
  clearThrottle,
  releaseIpAttempt,
  reserveIpAttempt,
  startAttempt,
  finishFailure,
  undoAttempt,
  type AccountRole,
} from "@/server/services/accounts/throttle";
import { issueDeviceToken, releaseDeviceAttempt, reserveDeviceAttempt, verifyDeviceToken } from "@/server/services/accounts/device-cookies";

export { SLOW_DOWN_AFTER, LOCK_AFTER, LOCK_MINUTES } from "@/server/services/accounts/throttle";

export type SignInFailure = "INVALID_CREDENTIALS" | "ACCOUNT_LOCKED" | "TOTP_REQUIRED" | "TOTP_INVALID" | "TOO_MANY_ATTEMPTS";

/** Longest password any account can have (the sign-up and change forms allow 200). */
const MAX_PASSWORD_LENGTH = 200;

export class SignInError extends Error {
  constructor(readonly code: SignInFailure) {
    super(code);
  }
}

export interface SignedIn {
  id: string;
  email: string;
  name: string;
  role: AccountRole;
  /** Goes into the session token; a session whose version is behind the account's is refused. */
  sessionVersion: number;
  /** A fresh device token for the browser that signed in (kept in a cookie; see device-cookies.ts). */
  deviceToken: string;
}

export interface SignInInput {
  email: string;
  password: string;
  code?: string | null;
  /** The browser's device token for this account, if it has one. */
  deviceToken?: string | null;
}

// A real hash to verify against when the email is unknown, so timing does not reveal accounts.
let dummyHash: Promise<string> | undefined;

/** Works out that hash now (at start-up) rather than beside the first sign-in's own check. */
export function primeSignInHash(): Promise<string> {
  dummyHash ??= hashPassword("parakh-dummy-password", passwordHashCost());
  return dummyHash;
}

interface Account {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  sessionVersion: number;
  totpEnabled?: boolean;
  totpSecretEnc?: string | null;
}

interface AccountStore {
  find(email: string): Promise<Account | null>;
  useRecoveryCode?(id: string, code: string): Promise<boolean>;
  /** Records the accepted TOTP step only if it is newer than the last one (false = replay). */
  claimTotpStep?(id: string, step: number): Promise<boolean>;
}

async function signIn(db: Db, store: AccountStore, role: AccountRole, input: SignInInput, ip: string): Promise<SignedIn> {
  const now = Date.now();
  const email = input.email.trim().toLowerCase().slice(0, 320);
  // Counted before the password is checked (per address, or per device token, and per
  // email+address), so parallel guesses cannot slip past either limit. A browser that signed in to
  // this account before counts against its own token, not against its address.
  let device = verifyDeviceToken(role, email, input.deviceToken, now);
  if (device && !(await reserveDeviceAttempt(device, now))) device = null;
  if (!device && !(await reserveIpAttempt(ip, now))) throw new SignInError("TOO_MANY_ATTEMPTS");
  const release = () => (device ? releaseDeviceAttempt(device) : releaseIpAttempt(ip));
  let attempt: Awaited<ReturnType<typeof startAttempt>>;
  try {
    attempt = await startAttempt(db, role, email, ip, now);
  } catch (err) {
    release();
    throw err;
  }
  if (attempt.locked) throw new SignInError("ACCOUNT_LOCKED");
  const account = email.length <= 254 ? await store.find(email) : null;

  const dummy = primeSignInHash();
  // Real passwords are at most 200 characters: a longer one is wrong without hashing megabytes.
  const passwordOk = input.password.length <= MAX_PASSWORD_LENGTH && (await verifyPassword(input.password, account?.passwordHash ?? (await dummy)));
  const fail = async (code: SignInFailure): Promise<never> => {
    if ((await finishFailure(db, attempt, now)) === "locked") throw new SignInError("ACCOUNT_LOCKED");
    throw new SignInError(code);
  };
  if (!account || !passwordOk) return fail("INVALID_CREDENTIALS");

  if (account.totpEnabled && account.totpSecretEnc) {
    const code = input.code?.trim().replace(/\s+/g, "") ?? "";
    if (!code) {
      // The right password alone neither counts as a failure nor clears earlier ones (that would
      // let wrong codes be retried without end).
      await undoAttempt(db, attempt);
      release();
      throw new SignInError("TOTP_REQUIRED");
    }
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
  await clearThrottle(db, attempt);
  release();
  return { id: account.id, email: account.email, name: account.name, role, sessionVersion: account.sessionVersion, deviceToken: issueDeviceToken(role, email) };
}

export function signInMerchant(db: Db, input: SignInInput, ip: string) {
  return signIn(
    db,
    {
      find: (email) => db.merchant.findUnique({ where: { email } }),
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

export function signInAdmin(db: Db, input: Omit<SignInInput, "code">, ip: string) {
  return signIn(
    db,
    {
      find: async (email) => {
        const a = await db.adminUser.findUnique({ where: { email } });
        return a ? { ...a, name: a.email } : null;
      },
    },
    "admin",
    input,
    ip,
  );
}
