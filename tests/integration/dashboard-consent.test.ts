import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { request } from "../helpers/http";
import type { TestServer } from "../helpers/server";
import { csvRows } from "../helpers/csv";
import { dashboardContext, failure, merchantSession, openDashboardTarget } from "../helpers/dashboard";
import { waitFor } from "../helpers/wait";

// The consent settings (default purpose, standing attestation) and where the dashboard shows a check's
// consent: the verification history, the KYC detail, and their CSV exports. Checks go over HTTP to a
// real server on the same database; the dashboard is the real router (createCaller).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-consent-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
process.env.ENCRYPTION_KEY = crypto.randomBytes(32).toString("base64");
process.env.HASH_KEY = crypto.randomBytes(32).toString("base64");
process.env.NEXTAUTH_SECRET = crypto.randomBytes(32).toString("base64url");
delete process.env.NEXTAUTH_URL;

const { getConfig } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { createMerchant } = await import("@/server/services/merchants/merchants");
const { exportVerificationsCsv } = await import("@/server/services/identity/verifications");
const { exportKycCsv } = await import("@/server/services/kyc/transactions");
const { GET: verificationsCsvRoute } = await import("@/app/api/dashboard/verifications/export/route");
const { GET: kycCsvRoute } = await import("@/app/api/dashboard/kyc/export/route");
const { encode } = await import("next-auth/jwt");
const { NextRequest } = await import("next/server");

type Db = import("@/server/db/client").Db;
type Services = import("@/server/services").AppServices;
type Merchant = Awaited<ReturnType<typeof createMerchant>>;

const PURPOSE = "Tenant screening: identity check before the lease";
const DEFAULT_PURPOSE = "Seller onboarding: PAN and bank check before payouts";

async function collect(gen: AsyncGenerator<string>): Promise<string> {
  let text = "";
  for await (const chunk of gen) text += chunk;
  // Without the byte-order mark the exports start with (for spreadsheets), so the first column is named as written.
  return text.replace(/^\uFEFF/, "");
}

describe.each(DB_TARGETS)("consent in the dashboard on %s", (target) => {
  let close: (() => Promise<void>) | undefined;
  let server: TestServer;
  let services: Services;
  let db: Db;
  let seq = 0;
  const dash = (m: Merchant) => dashboardRouter.createCaller(dashboardContext(services, merchantSession(m)));
  const newMerchant = async (name: string) =>
    createMerchant(db, { name, email: `${name.toLowerCase().replace(/\W+/g, "-")}-${target}-${++seq}@example.com`, password: "a-long-password" });
  const bearer = (m: Merchant) => ({ Authorization: `Bearer ${m.sandbox.key.secretKey}` });
  const kycHeaders = (m: Merchant) => ({ "x-api-key": m.sandbox.key.publicKey, "x-api-secret": m.sandbox.key.secretKey });

  beforeAll(async () => {
    ({ services, server, close } = await openDashboardTarget(target));
    db = services.db;
  });
  afterAll(() => close?.());

  it("sets the default purpose and standing attestation, refuses a purpose outside 20-200 characters, and the API applies them", async () => {
    const m = await newMerchant("Consent Settings");
    expect(await dash(m).account.consentSettings()).toEqual({ purpose: null, standing: false, standingSince: null });
    for (const purpose of ["x".repeat(19), "x".repeat(201)]) {
      expect(await failure(dash(m).account.updateConsentSettings({ purpose, standing: true }))).toMatchObject({ code: "BAD_REQUEST" });
    }
    expect(await dash(m).account.consentSettings()).toMatchObject({ purpose: null, standing: false });

    const set = await dash(m).account.updateConsentSettings({ purpose: DEFAULT_PURPOSE, standing: true });
    expect(set).toMatchObject({ purpose: DEFAULT_PURPOSE, standing: true });
    const since = set.standingSince;
    expect(since).toBeInstanceOf(Date);
    // Saving again keeps the time the attestation was first given; turning it off clears it.
    expect((await dash(m).account.updateConsentSettings({ purpose: DEFAULT_PURPOSE, standing: true })).standingSince).toEqual(since);

    // A sandbox check without fields of its own is recorded under the standing settings (within a second: the key cache).
    await waitFor("the standing settings to reach the API", async () => {
      const r = await request(server.url, "/v1/identity/pan/verify", { method: "POST", body: { pan: "ABCPK1234F" }, headers: bearer(m) });
      expect(r.status).toBe(200);
      const row = await db.verification.findFirst({ where: { merchantId: m.merchantId }, orderBy: { createdAt: "desc" } });
      return row?.consentSource === "standing";
    });

    expect(await dash(m).account.updateConsentSettings({ purpose: "", standing: false })).toEqual({ purpose: null, standing: false, standingSince: null });
  });

  it("shows each check's consent and purpose in the verification history and the KYC detail, and in both CSV exports", async () => {
    const m = await newMerchant("Consent Shown");
    const own = await request(server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F", consent: true, purpose: PURPOSE },
      headers: { ...bearer(m), "x-request-id": `req_dc_own_${target}` },
    });
    expect(own.status, own.text).toBe(200);
    const none = await request(server.url, "/v1/employment/epfo/verify", {
      method: "POST",
      body: { uan: "100200300400" },
      headers: { ...bearer(m), "x-request-id": `req_dc_none_${target}` },
    });
    expect(none.status, none.text).toBe(200);
    const batch = await request(server.url, "/v1/identity/pan/batch", {
      method: "POST",
      body: { items: [{ pan: "ABCPK1235F" }], consent: true, purpose: PURPOSE },
      headers: bearer(m),
    });
    expect(batch.status, batch.text).toBe(202);
    const batchId = batch.json.data.batch_id as string;
    await waitFor("the batch's item in the history", async () => (await db.verification.count({ where: { batchId } })) === 1);
    const kyc = await request(server.url, "/api/kyc/pan/verify", {
      method: "POST",
      body: { merchantId: m.merchantId, pan: "ABCPK1234F", consent: true, purpose: PURPOSE },
      headers: kycHeaders(m),
    });
    expect(kyc.status, kyc.text).toBe(200);
    const kycId = kyc.json.data.kycTransactionId as string;

    const list = await dash(m).verifications.list({ mode: "sandbox", limit: 10 });
    const byRequest = (id: string) => list.items.find((v) => v.requestId === id && v.batchId === null);
    expect(byRequest(`req_dc_own_${target}`)).toMatchObject({ consent: true, purpose: PURPOSE, consentSource: "request" });
    expect(byRequest(`req_dc_none_${target}`)).toMatchObject({ consent: null, purpose: null, consentSource: null });
    // A batch's item shows its batch's consent.
    expect(list.items.find((v) => v.batchId === batchId)).toMatchObject({ subject: "ABCPK1235F", consent: true, purpose: PURPOSE, consentSource: "request" });

    expect((await dash(m).kyc.get({ mode: "sandbox", id: kycId })).consent).toEqual({ consent: true, purpose: PURPOSE, source: "request" });

    const verifications = csvRows(await collect(exportVerificationsCsv(db, m.merchantId, "sandbox", {})));
    const head = verifications[0]!;
    expect(head.slice(-4)).toEqual(["consent", "purpose", "consent_source", "mode"]);
    const cell = (row: string[], name: string) => row[head.indexOf(name)];
    const vRow = (pred: (r: string[]) => boolean) => verifications.slice(1).find(pred)!;
    const ownRow = vRow((r) => cell(r, "request_id") === `req_dc_own_${target}` && cell(r, "batch_id") === "");
    expect([cell(ownRow, "subject"), cell(ownRow, "consent"), cell(ownRow, "purpose"), cell(ownRow, "consent_source")]).toEqual([
      "ABCPK1234F",
      "true",
      PURPOSE,
      "request",
    ]);
    const noneRow = vRow((r) => cell(r, "request_id") === `req_dc_none_${target}`);
    expect([cell(noneRow, "consent"), cell(noneRow, "purpose"), cell(noneRow, "consent_source")]).toEqual(["", "", ""]);
    const itemRow = vRow((r) => cell(r, "batch_id") === batchId);
    expect([cell(itemRow, "consent"), cell(itemRow, "purpose"), cell(itemRow, "consent_source")]).toEqual(["true", PURPOSE, "request"]);

    const kycRows = csvRows(await collect(exportKycCsv(db, m.merchantId, "sandbox", {})));
    const kHead = kycRows[0]!;
    const kRow = kycRows.slice(1).find((r) => r[kHead.indexOf("kyc_transaction_id")] === kycId)!;
    expect(["consent", "purpose", "consent_source"].map((c) => kRow[kHead.indexOf(c)])).toEqual(["true", PURPOSE, "request"]);

    // The download routes serve the same to the signed-in merchant (the routes read the app's own database: SQLite here).
    if (target === "sqlite") {
      const cookie = `next-auth.session-token=${await encode({ token: { sub: m.merchantId, role: "merchant", email: "x@example.com" }, secret: getConfig().secrets.nextAuthSecret })}`;
      for (const [route, url] of [
        [verificationsCsvRoute, "http://localhost/api/dashboard/verifications/export?mode=sandbox&kind=PAN"],
        [kycCsvRoute, "http://localhost/api/dashboard/kyc/export?mode=sandbox"],
      ] as const) {
        expect((await route(new NextRequest(url))).status).toBe(401);
        const res = await route(new NextRequest(url, { headers: { cookie } }));
        expect(res.status).toBe(200);
        const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer());
        expect(csvRows(text)[0]).toContain("consent_source");
        expect(text).toContain(PURPOSE);
      }
    }
  });
});
