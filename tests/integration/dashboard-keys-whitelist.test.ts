import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dashboardContext, failure, merchantSession } from "../helpers/dashboard";

// Server modules read DATA_DIR/DATABASE_URL when first imported, so set them before importing.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-keys-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { createMerchant, approveGoLive } = await import("@/server/services/merchants/merchants");
const { activeSigningSecrets } = await import("@/server/services/merchants/signing-secrets");
const { ipOrCidrProblem } = await import("@/lib/schemas/whitelist");
const { fetchRequestHandler } = await import("@trpc/server/adapters/fetch");

type Merchant = Awaited<ReturnType<typeof createMerchant>>;
const services = () => getServices();
const ctxFor = (m: Merchant | null, extra: Parameters<typeof dashboardContext>[2] = {}) => dashboardContext(services(), m && merchantSession(m), extra);
const callerFor = (m: Merchant | null, extra: Parameters<typeof ctxFor>[1] = {}) => dashboardRouter.createCaller(ctxFor(m, extra));

let seq = 0;
const newMerchant = (name = "Shop") => createMerchant(services().db, { name, email: `m${++seq}@example.com`, password: "a-long-password" });

describe("dashboard: API keys and IP whitelist", () => {
  let a: Merchant;
  let b: Merchant;

  beforeAll(async () => {
    await migrateTestDatabase(process.env.DATABASE_URL!);
    services().authCache.start();
    a = await newMerchant("Shop A");
    b = await newMerchant("Shop B");
  });
  afterAll(async () => {
    vi.useRealTimers();
    await services().authCache.stop();
  });

  describe("keys", () => {
    it("lists the sign-up key without any secret or hash", async () => {
      const res = await callerFor(a).keys.list({ mode: "sandbox" });
      expect(res.keys).toHaveLength(1);
      const k = res.keys[0]!;
      expect(k).toMatchObject({ id: a.sandbox.key.id, label: "Default", publicKey: a.sandbox.key.publicKey, lastUsedAt: null, status: "active" });
      expect(k.secretHint).toMatch(/^sk_test_.{4}….{4}$/);
      expect(Object.keys(k).sort()).toEqual(["createdAt", "expiresAt", "id", "label", "lastUsedAt", "publicKey", "revokedAt", "secretHint", "status"]);
      const text = JSON.stringify(res);
      expect(text).not.toContain(a.sandbox.key.secretKey);
      const row = await services().db.apiKey.findUniqueOrThrow({ where: { id: a.sandbox.key.id } });
      expect(text).not.toContain(row.secretHash);
      expect(res.signingSecret.createdAt).not.toBeNull();
    });

    it("creates a key, returns its secret once, and lists it newest first", async () => {
      const created = await callerFor(a).keys.create({ mode: "sandbox", label: "  Billing server  " });
      expect(created.label).toBe("Billing server");
      expect(created.secretKey).toMatch(/^sk_test_[A-Za-z0-9]+$/);
      expect(created.publicKey).toMatch(/^pk_test_[A-Za-z0-9]+$/);
      expect(await services().authCache.bySecret(created.secretKey)).toMatchObject({ id: created.id, merchantId: a.merchantId, mode: "sandbox" });
      const list = await callerFor(a).keys.list({ mode: "sandbox" });
      expect(list.keys[0]!.id).toBe(created.id);
      expect(JSON.stringify(list)).not.toContain(created.secretKey);
    });

    it("validates the label on the server with the form's schema", async () => {
      expect((await failure(callerFor(a).keys.create({ mode: "sandbox", label: "   " }))).code).toBe("BAD_REQUEST");
      expect((await failure(callerFor(a).keys.create({ mode: "sandbox", label: "x".repeat(51) }))).code).toBe("BAD_REQUEST");
      expect((await callerFor(a).keys.create({ mode: "sandbox", label: "x".repeat(50) })).label).toHaveLength(50);
    });

    it("rotates with a grace period: the old key works until expiresAt, then stops", async () => {
      const m = await newMerchant();
      const caller = callerFor(m);
      const oldSecret = m.sandbox.key.secretKey;
      const before = Date.now();
      const rotated = await caller.keys.rotate({ mode: "sandbox", keyId: m.sandbox.key.id, graceSeconds: 3600 });
      expect(rotated.key.secretKey).toMatch(/^sk_test_/);
      expect(rotated.key.label).toBe("Default");
      expect(rotated.oldKey.revoked).toBe(false);
      const expiresAt = new Date(rotated.oldKey.expiresAt).getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
      expect(expiresAt).toBeLessThan(Date.now() + 3600_000 + 1000);

      expect(await services().authCache.bySecret(oldSecret)).not.toBeNull();
      expect(await services().authCache.bySecret(rotated.key.secretKey)).not.toBeNull();
      const list = await caller.keys.list({ mode: "sandbox" });
      expect(list.keys.map((k) => [k.id, k.status])).toEqual([
        [rotated.key.id, "active"],
        [m.sandbox.key.id, "rotating"],
      ]);
      expect(list.keys[1]!.expiresAt).toBe(rotated.oldKey.expiresAt);

      // A key in its grace period cannot be rotated again (that would stretch its life).
      expect(await failure(caller.keys.rotate({ mode: "sandbox", keyId: m.sandbox.key.id, graceSeconds: 604_800 }))).toMatchObject({ code: "CONFLICT" });

      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(expiresAt + 1000);
        expect(await services().authCache.bySecret(oldSecret)).toBeNull();
        expect((await caller.keys.list({ mode: "sandbox" })).keys[1]!.status).toBe("expired");
        // An expired key cannot be brought back by rotating it.
        expect(await failure(caller.keys.rotate({ mode: "sandbox", keyId: m.sandbox.key.id, graceSeconds: 3600 }))).toMatchObject({ code: "CONFLICT" });
      } finally {
        vi.useRealTimers();
      }
    });

    it("revoking a key in its grace period stops it at once", async () => {
      const m = await newMerchant();
      const rotated = await callerFor(m).keys.rotate({ mode: "sandbox", keyId: m.sandbox.key.id, graceSeconds: 86_400 });
      expect(await services().authCache.bySecret(m.sandbox.key.secretKey)).not.toBeNull();
      await callerFor(m).keys.revoke({ mode: "sandbox", keyId: m.sandbox.key.id });
      expect(await services().authCache.bySecret(m.sandbox.key.secretKey)).toBeNull();
      expect(await services().authCache.bySecret(rotated.key.secretKey)).not.toBeNull();
      const old = (await callerFor(m).keys.list({ mode: "sandbox" })).keys.find((k) => k.id === m.sandbox.key.id)!;
      expect(old.status).toBe("revoked");
      expect(old.revokedAt).not.toBeNull();
    });

    it("rotating immediately stops the old key and shows it as revoked", async () => {
      const m = await newMerchant();
      const rotated = await callerFor(m).keys.rotate({ mode: "sandbox", keyId: m.sandbox.key.id, graceSeconds: 0 });
      expect(rotated.oldKey.revoked).toBe(true);
      expect(await services().authCache.bySecret(m.sandbox.key.secretKey)).toBeNull();
      expect((await callerFor(m).keys.list({ mode: "sandbox" })).keys.find((k) => k.id === m.sandbox.key.id)!.status).toBe("revoked");
    });

    it("refuses grace periods the dashboard does not offer", async () => {
      const m = await newMerchant();
      expect((await failure(callerFor(m).keys.rotate({ mode: "sandbox", keyId: m.sandbox.key.id, graceSeconds: 999_999 as 3600 }))).code).toBe("BAD_REQUEST");
      expect(await services().authCache.bySecret(m.sandbox.key.secretKey)).not.toBeNull();
    });

    it("revokes at once, and a second revoke is a conflict", async () => {
      const m = await newMerchant();
      await callerFor(m).keys.revoke({ mode: "sandbox", keyId: m.sandbox.key.id });
      expect(await services().authCache.bySecret(m.sandbox.key.secretKey)).toBeNull();
      expect((await failure(callerFor(m).keys.revoke({ mode: "sandbox", keyId: m.sandbox.key.id }))).code).toBe("CONFLICT");
      expect((await callerFor(m).keys.list({ mode: "sandbox" })).keys[0]!.status).toBe("revoked");
    });

    it("caps the working keys per mode", async () => {
      const m = await newMerchant();
      const { MAX_USABLE_KEYS_PER_MODE } = await import("@/server/services/auth/api-keys");
      for (let i = 1; i < MAX_USABLE_KEYS_PER_MODE; i++) await callerFor(m).keys.create({ mode: "sandbox", label: `k${i}` });
      expect(await failure(callerFor(m).keys.create({ mode: "sandbox", label: "one too many" }))).toMatchObject({ code: "CONFLICT", appCode: "CONFLICT" });
    });

    it("reveals the signing secret and rotates it, keeping the previous one valid 24 h", async () => {
      const m = await newMerchant();
      const caller = callerFor(m);
      const { proof: reauth } = await caller.security.confirmPassword({ password: "a-long-password" });
      const { secret } = await caller.keys.revealSigningSecret({ mode: "sandbox", reauth });
      expect(secret).toBe(m.sandbox.signingSecret);
      const rotated = await caller.keys.rotateSigningSecret({ mode: "sandbox", reauth });
      expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9]+$/);
      expect(rotated.secret).not.toBe(secret);
      const validUntil = new Date(rotated.previousValidUntil).getTime();
      expect(Math.abs(validUntil - (Date.now() + 24 * 3600_000))).toBeLessThan(5000);
      expect((await caller.keys.revealSigningSecret({ mode: "sandbox", reauth })).secret).toBe(rotated.secret);
      expect(await activeSigningSecrets(services().db, m.merchantId, "sandbox")).toEqual([rotated.secret, secret]);
      const list = await caller.keys.list({ mode: "sandbox" });
      expect(list.signingSecret.previousValidUntil).not.toBeNull();
      expect(JSON.stringify(list)).not.toContain("whsec_");
    });
  });

  describe("whitelist", () => {
    it("starts empty and reports the caller's IP", async () => {
      const m = await newMerchant();
      const res = await callerFor(m, { clientIp: "::ffff:203.0.113.7" }).whitelist.list();
      expect(res).toMatchObject({ entries: [], currentIp: "203.0.113.7", currentIpListed: false, enforceOnAllApis: false });
    });

    it("adds canonical entries, shows when the current IP is covered, and removes", async () => {
      const m = await newMerchant();
      const caller = callerFor(m, { clientIp: "10.1.2.3" });
      const range = await caller.whitelist.add({ ip: " 10.0.0.0/8 ", label: "Office", confirmWide: true });
      expect(range).toMatchObject({ cidr: "10.0.0.0/8", label: "Office" });
      const v6 = await caller.whitelist.add({ ip: "2001:DB8:0:0::1", label: "" });
      expect(v6.cidr).toBe("2001:db8::1");
      let list = await caller.whitelist.list();
      expect(list.entries.map((e) => e.cidr)).toEqual(["2001:db8::1", "10.0.0.0/8"]);
      expect(list.currentIpListed).toBe(true);
      expect((await services().authCache.bySecret(m.sandbox.key.secretKey))!.merchant.whitelist.has("10.9.9.9")).toBe(true);

      await caller.whitelist.remove({ id: range.id });
      list = await caller.whitelist.list();
      expect(list.entries.map((e) => e.cidr)).toEqual(["2001:db8::1"]);
      expect(list.currentIpListed).toBe(false);
      expect((await services().authCache.bySecret(m.sandbox.key.secretKey))!.merchant.whitelist.has("10.9.9.9")).toBe(false);
      expect((await failure(caller.whitelist.remove({ id: range.id }))).code).toBe("NOT_FOUND");
    });

    it("adds the whole internet, or any range wider than a /16 (IPv6: a /48), only when confirmed", async () => {
      const m = await newMerchant();
      const caller = callerFor(m);
      for (const [ip, says] of [
        ["0.0.0.0/0", /every IPv4 address on the internet/],
        ["::/0", /every IPv6 address on the internet/],
        ["::ffff:0:0/96", /every IPv4 address on the internet/],
        ["10.0.0.0/8", /1,67,77,216 addresses/],
        ["172.16.0.0/15", /1,31,072 addresses/],
        ["2001:db8::/32", /wider than a \/48/],
        ["2001:db8::/47", /wider than a \/48/],
      ] as const) {
        const err = await failure(caller.whitelist.add({ ip, label: "" }));
        expect(err, ip).toMatchObject({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR", fields: ["ip"] });
        expect(err.message, ip).toMatch(says);
        expect(err.message, ip).toMatch(/confirm/i);
      }
      expect((await caller.whitelist.list()).entries).toEqual([]);
      // Up to a /16 (65,536 addresses) and an IPv6 /48 need no confirmation.
      for (const ip of ["172.16.0.0/16", "203.0.113.0/24", "2001:db8:1::/48", "198.51.100.7"]) {
        await expect(caller.whitelist.add({ ip, label: "" }), ip).resolves.toMatchObject({ cidr: ip });
      }
      await expect(caller.whitelist.add({ ip: "0.0.0.0/0", label: "Anyone", confirmWide: true })).resolves.toMatchObject({ cidr: "0.0.0.0/0" });
      await expect(caller.whitelist.add({ ip: "::/0", label: "", confirmWide: true })).resolves.toMatchObject({ cidr: "::/0" });
      expect((await services().authCache.bySecret(m.sandbox.key.secretKey))!.merchant.whitelist.has("192.0.2.200")).toBe(true);
    });

    it("refuses a duplicate (in any spelling) as a conflict on the ip field", async () => {
      const m = await newMerchant();
      await callerFor(m).whitelist.add({ ip: "198.51.100.4", label: "" });
      expect(await failure(callerFor(m).whitelist.add({ ip: "::ffff:198.51.100.4", label: "again" }))).toMatchObject({ code: "CONFLICT", fields: ["ip"] });
      expect((await callerFor(m).whitelist.list()).entries).toHaveLength(1);
    });

    it("refuses invalid input: the form's schema first, then the server's parser", async () => {
      const m = await newMerchant();
      for (const ip of ["", "1.2.3", "300.1.1.1", "10.0.0.5/8", "1.2.3.4/33", "not an ip"]) {
        expect((await failure(callerFor(m).whitelist.add({ ip, label: "" }))).code).toBe("BAD_REQUEST");
      }
      expect((await failure(callerFor(m).whitelist.add({ ip: "1.2.3.4", label: "x".repeat(101) }))).code).toBe("BAD_REQUEST");
      // Passes the browser-safe check but not parseCidr: the service's error names the field.
      expect(ipOrCidrProblem("::ffff:1.2.3.4/128")).toBeNull();
      expect(await failure(callerFor(m).whitelist.add({ ip: "::ffff:1.2.3.4/128", label: "" }))).toMatchObject({
        code: "BAD_REQUEST",
        appCode: "VALIDATION_ERROR",
        fields: ["ip"],
      });
      expect((await callerFor(m).whitelist.list()).entries).toEqual([]);
    });

    it("the form's browser-safe check agrees with the server's parser", async () => {
      const { parseCidr } = await import("@/server/lib/ip");
      const inputs = [
        "1.2.3.4",
        " 1.2.3.4 ",
        "1.2.3.4/32",
        "0.0.0.0/0",
        "10.0.0.0/8",
        "10.0.0.5/8",
        "10.0.0.0/33",
        "010.0.0.1",
        "1.2.3.256",
        "1.2.3",
        "1.2.3.4/",
        "1.2.3.4/08",
        "::",
        "::1",
        "::/0",
        "fe80::/10",
        "fe80::1/10",
        "2001:DB8::1",
        "2001:db8::/32",
        "::ffff:1.2.3.4",
        "::ffff:0:0/96",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7::",
        "1::2::3",
        "12345::",
        "1:2:3:4:5:6:1.2.3.4",
        "1:2:3:4:5:6:7:1.2.3.4",
        ":1:2:3:4:5:6:7",
        "a.b.c.d",
        "",
      ];
      for (const ip of inputs) expect([ip, ipOrCidrProblem(ip) === null]).toEqual([ip, parseCidr(ip) !== null]);
    });

    it("sends the server's field error to the form through the HTTP endpoint", async () => {
      const res = await fetchRequestHandler({
        endpoint: "/api/trpc",
        router: dashboardRouter,
        req: new Request("http://localhost/api/trpc/whitelist.add", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ip: "::ffff:1.2.3.4/128", label: "" }),
        }),
        createContext: async () => ctxFor(a),
      });
      const body = (await res.json()) as { error: { data: { appCode?: string; fieldErrors?: Record<string, string> } } };
      expect(res.status).toBe(400);
      expect(body.error.data.appCode).toBe("VALIDATION_ERROR");
      expect(body.error.data.fieldErrors?.ip).toMatch(/not an IPv4\/IPv6 address/);
    });

    it("toggles enforcement on /v1 and KYC", async () => {
      const m = await newMerchant();
      expect(await callerFor(m).whitelist.setEnforcement({ enforceOnAllApis: true })).toEqual({ enforceOnAllApis: true });
      expect((await callerFor(m).whitelist.list()).enforceOnAllApis).toBe(true);
      expect((await services().authCache.bySecret(m.sandbox.key.secretKey))!.merchant.enforceWhitelistAll).toBe(true);
      await callerFor(m).whitelist.setEnforcement({ enforceOnAllApis: false });
      expect((await services().db.merchant.findUniqueOrThrow({ where: { id: m.merchantId } })).enforceWhitelistAll).toBe(false);
      expect((await callerFor(b).whitelist.list()).enforceOnAllApis).toBe(false);
    });
  });

  describe("access", () => {
    it("refuses cross-site mutations", async () => {
      const m = await newMerchant();
      const csrf = callerFor(m, { sameOrigin: false });
      expect((await failure(csrf.keys.create({ mode: "sandbox", label: "x" }))).code).toBe("FORBIDDEN");
      expect((await failure(csrf.keys.revoke({ mode: "sandbox", keyId: m.sandbox.key.id }))).code).toBe("FORBIDDEN");
      expect((await failure(csrf.keys.revealSigningSecret({ mode: "sandbox" }))).code).toBe("FORBIDDEN");
      expect((await failure(csrf.whitelist.add({ ip: "1.2.3.4", label: "" }))).code).toBe("FORBIDDEN");
      expect((await failure(csrf.whitelist.setEnforcement({ enforceOnAllApis: true }))).code).toBe("FORBIDDEN");
      expect(await services().authCache.bySecret(m.sandbox.key.secretKey)).not.toBeNull();
      expect((await callerFor(m).whitelist.list()).entries).toEqual([]);
    });

    it("refuses callers who are not signed in as a merchant", async () => {
      const anon = callerFor(null);
      expect((await failure(anon.keys.list({ mode: "sandbox" }))).code).toBe("UNAUTHORIZED");
      expect((await failure(anon.keys.create({ mode: "sandbox", label: "x" }))).code).toBe("UNAUTHORIZED");
      expect((await failure(anon.keys.revealSigningSecret({ mode: "sandbox" }))).code).toBe("UNAUTHORIZED");
      expect((await failure(anon.whitelist.list())).code).toBe("UNAUTHORIZED");
      expect((await failure(anon.whitelist.add({ ip: "1.2.3.4", label: "" }))).code).toBe("UNAUTHORIZED");
      const admin = dashboardRouter.createCaller({ ...ctxFor(null), session: { id: a.merchantId, email: "ops@example.com", role: "admin" } });
      expect((await failure(admin.keys.list({ mode: "sandbox" }))).code).toBe("FORBIDDEN");
    });

    it("keeps merchant A's keys and entries out of merchant B's reach", async () => {
      const owner = await newMerchant("Owner");
      const entry = await callerFor(owner).whitelist.add({ ip: "192.0.2.1", label: "Owner's server" });
      const intruder = callerFor(b);

      const bKeys = await intruder.keys.list({ mode: "sandbox" });
      expect(bKeys.keys.some((k) => k.id === owner.sandbox.key.id)).toBe(false);
      expect(JSON.stringify(bKeys)).not.toContain(owner.sandbox.key.publicKey);
      expect((await failure(intruder.keys.rotate({ mode: "sandbox", keyId: owner.sandbox.key.id, graceSeconds: 0 }))).code).toBe("NOT_FOUND");
      expect((await failure(intruder.keys.revoke({ mode: "sandbox", keyId: owner.sandbox.key.id }))).code).toBe("NOT_FOUND");
      expect((await intruder.whitelist.list()).entries.some((e) => e.id === entry.id)).toBe(false);
      expect((await failure(intruder.whitelist.remove({ id: entry.id }))).code).toBe("NOT_FOUND");
      // The service also removes by address; B sending A's address must not touch A's list.
      expect((await failure(intruder.whitelist.remove({ id: "192.0.2.1" }))).code).toBe("NOT_FOUND");
      const { proof: reauth } = await intruder.security.confirmPassword({ password: "a-long-password" });
      expect((await intruder.keys.revealSigningSecret({ mode: "sandbox", reauth })).secret).not.toBe(owner.sandbox.signingSecret);

      expect(await services().authCache.bySecret(owner.sandbox.key.secretKey)).not.toBeNull();
      expect((await callerFor(owner).whitelist.list()).entries.map((e) => e.id)).toEqual([entry.id]);
    });

    it("keeps modes apart: sandbox keys are not in live lists and cannot be changed as live", async () => {
      const m = await newMerchant("Live shop");
      const caller = callerFor(m);
      expect(await failure(caller.keys.list({ mode: "live" }))).toMatchObject({ code: "FORBIDDEN", appCode: "LIVE_MODE_NOT_ENABLED" });
      expect(await failure(caller.keys.create({ mode: "live", label: "x" }))).toMatchObject({ code: "FORBIDDEN", appCode: "LIVE_MODE_NOT_ENABLED" });
      await approveGoLive(services().db, m.merchantId);

      expect((await caller.keys.list({ mode: "live" })).keys).toEqual([]);
      const { proof: reauth } = await caller.security.confirmPassword({ password: "a-long-password" });
      const live = await caller.keys.create({ mode: "live", label: "Production", reauth });
      expect(live.secretKey).toMatch(/^sk_live_/);
      expect((await caller.keys.list({ mode: "live" })).keys.map((k) => k.id)).toEqual([live.id]);
      expect((await caller.keys.list({ mode: "sandbox" })).keys.map((k) => k.id)).toEqual([m.sandbox.key.id]);

      expect((await failure(caller.keys.rotate({ mode: "live", keyId: m.sandbox.key.id, graceSeconds: 0, reauth }))).code).toBe("NOT_FOUND");
      expect((await failure(caller.keys.revoke({ mode: "live", keyId: m.sandbox.key.id }))).code).toBe("NOT_FOUND");
      expect((await failure(caller.keys.revoke({ mode: "sandbox", keyId: live.id }))).code).toBe("NOT_FOUND");
      expect(await services().authCache.bySecret(m.sandbox.key.secretKey)).not.toBeNull();
      expect(await services().authCache.bySecret(live.secretKey)).not.toBeNull();

      const liveSecret = (await caller.keys.revealSigningSecret({ mode: "live", reauth })).secret;
      expect(liveSecret).not.toBe(m.sandbox.signingSecret);
      await caller.keys.rotateSigningSecret({ mode: "live", reauth });
      expect((await caller.keys.revealSigningSecret({ mode: "sandbox", reauth })).secret).toBe(m.sandbox.signingSecret);
    });
  });
});
