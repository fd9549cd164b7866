import QRCode from "qrcode";
import type { Db } from "@/server/db/client";
import { getConfig } from "@/server/config";
import { AppError } from "@/server/errors";
import { decrypt, encrypt, sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { checkMerchantPassword } from "@/server/services/accounts/passwords";
import { generateRecoveryCodes, generateTotpSecret, otpauthUrl, verifyTotp } from "@/server/services/accounts/totp";

/** Starts enrolment: a new secret kept encrypted but not yet active until a code proves the app has it. */
export async function beginTotpSetup(db: Db, merchantId: string) {
  const m = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { email: true, totpEnabled: true } });
  if (m.totpEnabled) throw new AppError("CONFLICT", "Two-factor sign-in is already on.");
  const secret = generateTotpSecret();
  await db.merchant.update({ where: { id: merchantId }, data: { totpSecretEnc: encrypt(secret, getConfig().secrets.encryptionKey) } });
  const url = otpauthUrl(secret, m.email);
  return { secret, otpauthUrl: url, qrCode: await otpauthQrCode(url) };
}

/** The otpauth:// URI as a QR code image (an SVG data: URL) for authenticator apps to scan. */
export async function otpauthQrCode(url: string): Promise<string> {
  const svg = await QRCode.toString(url, { type: "svg", margin: 2, errorCorrectionLevel: "M" });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}

/** Ten new one-time codes, stored as hashes; the old ones (used or not) are deleted with them, so they stop working. */
function replaceRecoveryCodes(db: Db, merchantId: string, codes: string[]) {
  return [
    db.recoveryCode.deleteMany({ where: { merchantId } }),
    db.recoveryCode.createMany({ data: codes.map((c) => ({ id: newId("rc"), merchantId, codeHash: sha256Hex(c) })) }),
  ];
}

export async function enableTotp(db: Db, merchantId: string, code: string) {
  const m = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { totpSecretEnc: true, totpEnabled: true } });
  if (m.totpEnabled) throw new AppError("CONFLICT", "Two-factor sign-in is already on.");
  if (!m.totpSecretEnc) throw new AppError("CONFLICT", "Start the set-up first.");
  const secret = decrypt(m.totpSecretEnc, getConfig().secrets.encryptionKey);
  if (!verifyTotp(secret, code))
    throw new AppError("VALIDATION_ERROR", "That code is not right. Check the time on your phone and try the current code.", { field: "code" });
  const codes = generateRecoveryCodes();
  await db.$transaction([...replaceRecoveryCodes(db, merchantId, codes), db.merchant.update({ where: { id: merchantId }, data: { totpEnabled: true } })]);
  return { recoveryCodes: codes };
}

/** Recovery codes not used yet (null while two-factor sign-in is off). */
export async function recoveryCodesLeft(db: Db, merchantId: string, totpEnabled: boolean): Promise<number | null> {
  return totpEnabled ? db.recoveryCode.count({ where: { merchantId, usedAt: null } }) : null;
}

/** A new set of recovery codes (shown once); every earlier code stops working in the same transaction. */
export async function regenerateRecoveryCodes(db: Db, merchantId: string) {
  const m = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { totpEnabled: true } });
  if (!m.totpEnabled) throw new AppError("CONFLICT", "Two-factor sign-in is off, so there are no recovery codes to replace.");
  const codes = generateRecoveryCodes();
  await db.$transaction(replaceRecoveryCodes(db, merchantId, codes));
  return { recoveryCodes: codes };
}

/** Turning it off needs the password, checked (and throttled) as sign-in checks it. */
export async function disableTotp(db: Db, merchantId: string, password: string, ip: string) {
  await checkMerchantPassword(db, merchantId, password, ip, "password", "The password is not right.");
  await db.$transaction([
    db.recoveryCode.deleteMany({ where: { merchantId } }),
    db.merchant.update({ where: { id: merchantId }, data: { totpEnabled: false, totpSecretEnc: null, totpLastStep: null } }),
  ]);
}
