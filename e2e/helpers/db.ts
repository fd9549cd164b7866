import path from "node:path";
import Database from "better-sqlite3";

// The e2e server always runs on SQLite (playwright.config.ts). Playwright loads tests as CommonJS,
// which can't load the ESM-only generated Prisma client, so these few set-ups use SQL directly.

function e2eDatabaseFile(): string {
  const file = process.env.PARAKH_E2E_DEMO_CREDENTIALS;
  if (!file) throw new Error("PARAKH_E2E_DEMO_CREDENTIALS is not set; run through playwright.config.ts");
  // The data folder holds both the demo credentials and parakh.db.
  return path.join(path.dirname(file), "parakh.db");
}

function withDb<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(e2eDatabaseFile());
  db.pragma("busy_timeout = 5000");
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Prisma's SQLite text form of a DateTime. */
const sqlDate = (d: Date) => d.toISOString().replace("Z", "+00:00");

export function paymentStatus(paymentId: string): string | undefined {
  return withDb((db) => (db.prepare("SELECT status FROM Payment WHERE id = ?").get(paymentId) as { status: string } | undefined)?.status);
}

/** Moves a payment's expiry (tests can't wait the 5-minute minimum). */
export function setPaymentExpiry(paymentId: string, expiresAt: Date): void {
  withDb((db) => db.prepare("UPDATE Payment SET expiresAt = ? WHERE id = ?").run(sqlDate(expiresAt), paymentId));
}

/** Brings the payment's scheduled expiry job forward so the sweeper runs it now. */
export function runExpiryJobNow(paymentId: string): number {
  return withDb(
    (db) =>
      db
        .prepare("UPDATE Job SET runAt = ? WHERE type = 'payment.expire' AND status = 'QUEUED' AND payload = ?")
        .run(sqlDate(new Date()), JSON.stringify({ paymentId })).changes,
  );
}

/** Registers a sandbox webhook endpoint for the merchant (the dashboard's Webhooks page does the same). */
export function addWebhookEndpoint(merchantId: string, url: string, events = "*"): string {
  const id = `we_e2e${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  const now = sqlDate(new Date());
  withDb((db) =>
    db
      .prepare("INSERT INTO WebhookEndpoint (id, merchantId, mode, url, events, enabled, createdAt, updatedAt) VALUES (?, ?, 'sandbox', ?, ?, 1, ?, ?)")
      .run(id, merchantId, url, events, now, now),
  );
  return id;
}

export function merchantIdByEmail(email: string): string {
  const row = withDb((db) => db.prepare("SELECT id FROM Merchant WHERE email = ?").get(email) as { id: string } | undefined);
  if (!row) throw new Error(`No merchant ${email}`);
  return row.id;
}

/** The merchant's API keys, newest first (the secret is never stored, so it is not here either). */
export function apiKeysOf(merchantId: string): { label: string; publicKey: string; createdAt: Date }[] {
  const rows = withDb((db) => db.prepare("SELECT label, publicKey, createdAt FROM ApiKey WHERE merchantId = ? ORDER BY createdAt DESC").all(merchantId)) as {
    label: string;
    publicKey: string;
    createdAt: string;
  }[];
  return rows.map((r) => ({ ...r, createdAt: new Date(r.createdAt) }));
}

export function whitelistEntryCreatedAt(merchantId: string, cidr: string): Date {
  const row = withDb(
    (db) => db.prepare("SELECT createdAt FROM IpWhitelistEntry WHERE merchantId = ? AND cidr = ?").get(merchantId, cidr) as { createdAt: string } | undefined,
  );
  if (!row) throw new Error(`No whitelist entry ${cidr}`);
  return new Date(row.createdAt);
}

/** The origins allowed to frame the merchant's hosted checkout (Settings does the same); null clears them. */
export function setCheckoutFrameOrigins(merchantId: string, origins: string | null): void {
  withDb((db) => db.prepare("UPDATE Merchant SET checkoutFrameOrigins = ? WHERE id = ?").run(origins, merchantId));
}

/** Bodies of the email kept in the outbox for this recipient, oldest first (the e2e server has no SMTP). */
export function outboxBodiesTo(to: string): string[] {
  const rows = withDb((db) => db.prepare('SELECT body FROM EmailMessage WHERE "to" = ? ORDER BY rowid').all(to)) as { body: string | null }[];
  return rows.map((r) => r.body ?? "");
}

/** Moves every reset link of the merchant past its expiry, as if the 30 minutes had gone by. */
export function expireResetLinksOf(email: string): void {
  withDb((db) =>
    db
      .prepare("UPDATE PasswordResetToken SET expiresAt = ? WHERE role = 'merchant' AND accountId = (SELECT id FROM Merchant WHERE email = ?)")
      .run(sqlDate(new Date(Date.now() - 60_000)), email),
  );
}
