import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Db } from "@/server/db/client";
import { createMerchant } from "@/server/services/merchants/merchants";
import { addWhitelistEntry } from "@/server/services/merchants/whitelist";

export const DEMO_EMAIL = "demo@parakh.local";

export interface DemoCredentials {
  merchantId: string;
  email: string;
  password: string;
  sandbox: { publicKey: string; secretKey: string; signingSecret: string };
}

function credentialsFile(dataDir: string) {
  return path.join(dataDir, "demo-credentials.json");
}

/**
 * The demo merchant of the single-machine run. Its secrets are shown once like any merchant's, so
 * they are also kept in the data folder (mode 0600) to be printed on every local start.
 */
export async function ensureDemoMerchant(db: Db, dataDir: string): Promise<DemoCredentials | null> {
  const file = credentialsFile(dataDir);
  const existing = await db.merchant.findUnique({ where: { email: DEMO_EMAIL }, select: { id: true } });
  if (existing) {
    if (!fs.existsSync(file)) return null;
    const creds = JSON.parse(fs.readFileSync(file, "utf8")) as DemoCredentials;
    return creds.merchantId === existing.id ? creds : null;
  }
  const password = `demo-${crypto.randomBytes(6).toString("base64url")}`;
  const created = await createMerchant(db, { name: "Demo Store", email: DEMO_EMAIL, password });
  await addWhitelistEntry(db, created.merchantId, "127.0.0.1", "This machine (IPv4)");
  await addWhitelistEntry(db, created.merchantId, "::1", "This machine (IPv6)");
  const creds: DemoCredentials = {
    merchantId: created.merchantId,
    email: DEMO_EMAIL,
    password,
    sandbox: {
      publicKey: created.sandbox.key.publicKey,
      secretKey: created.sandbox.key.secretKey,
      signingSecret: created.sandbox.signingSecret,
    },
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
  return creds;
}
