import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startSmtpServer, type SmtpServer } from "../helpers/smtp";
import { dashboardContext, failure } from "../helpers/dashboard";

// Passwords and sessions: forgot/reset by email (outbox and SMTP), the per email+client sign-in
// lock, revocable sessions, the read-only suspended dashboard and the two-factor QR code.

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-security-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
// Info level so the development outbox log line can be checked; stderr is captured below.
process.env.LOG_LEVEL = "info";
delete process.env.NEXTAUTH_URL;
delete process.env.SMTP_URL;
delete process.env.BASE_URL;

// requireUser (server components) reads the session through next-auth and redirects through Next.
const nextAuthSession = vi.hoisted(() => ({ current: null as null | { user: Record<string, unknown> } }));
vi.mock("next-auth", async (importOriginal) => ({ ...(await importOriginal<object>()), getServerSession: async () => nextAuthSession.current }));
// Layouts learn the page's path from a header the server sets; here no page was asked for.
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    throw new Error(`REDIRECT ${url}`);
  },
}));

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { getConfig, configFrom } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { ALLOWED_WHILE_SUSPENDED } = await import("@/server/trpc/dashboard-procedures");
const { signInMerchant, signInAdmin, LOCK_AFTER } = await import("@/server/services/accounts/sign-in");
const { resetPassword, RESET_EMAILS_PER_ACCOUNT, RESET_REQUESTS_PER_IP } = await import("@/server/services/accounts/passwords");
const { sendEmail } = await import("@/server/services/email/email");
const { createAdmin } = await import("@/server/services/merchants/merchants");
const { totpAt } = await import("@/server/services/accounts/totp");
const { requireUser } = await import("@/server/auth/session");
const { POST: trpcPost, GET: trpcGet } = await import("@/app/api/trpc/[trpc]/route");
const { GET: exportCsv } = await import("@/app/api/dashboard/payments/export/route");
const { encode } = await import("next-auth/jwt");
const { NextRequest } = await import("next/server");
const QRCode = (await import("qrcode")).default;

type Session = { id: string; email: string; role: "merchant" | "admin"; sessionVersion?: number };
const db = () => getServices().db;
const caller = (session: Session | null, opts: { ip?: string; services?: ReturnType<typeof getServices> } = {}) =>
  dashboardRouter.createCaller(dashboardContext(opts.services ?? getServices(), session, { clientIp: opts.ip ?? "203.0.113.1" }));
const sha256 = (v: string) => crypto.createHash("sha256").update(v).digest("hex");

let seq = 0;
async function signup(password = "a-long-password") {
  const email = `owner${seq++}@security.example`;
  const { merchantId } = await caller(null).account.signup({ name: "Lock Smiths", email, password });
  return { merchantId, email, password, session: { id: merchantId, email, role: "merchant" as const } };
}

async function lastEmailTo(email: string) {
  return db().emailMessage.findFirst({ where: { to: email }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

function tokenFrom(body: string): string {
  const m = /\/reset-password#token=([A-Za-z0-9]+)/.exec(body);
  if (!m) throw new Error(`no reset link in: ${body}`);
  return m[1]!;
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

let stderr: string[] = [];
let ipSeq = 0;
const freshIp = () => `198.51.100.${++ipSeq}`;
const pinnedIps = new Map<string, string>();
/** One client address per key, so parallel calls share it. */
const freshIpFor = (key: string) => pinnedIps.get(key) ?? (pinnedIps.set(key, freshIp()), pinnedIps.get(key)!);

beforeAll(async () => {
  await migrateTestDatabase(process.env.DATABASE_URL!);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe("forgot password", () => {
  it("emails a single-use link whose token is stored only as a hash", async () => {
    const { email, password } = await signup();
    expect(await caller(null, { ip: freshIp() }).security.requestPasswordReset({ email: ` ${email.toUpperCase()} ` })).toEqual({ ok: true });
    const msg = await lastEmailTo(email);
    expect(msg).toMatchObject({ status: "OUTBOX", subject: "Reset your Parakh password" });
    expect(msg!.body).toContain(`${getConfig().appUrl}/reset-password#token=`);
    const token = tokenFrom(msg!.body!);
    expect(token.length).toBeGreaterThanOrEqual(40);

    const rows = await db().passwordResetToken.findMany({ where: { tokenHash: sha256(token) } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(await db().passwordResetToken.findMany())).not.toContain(token);
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(30 * 60_000);

    expect(await caller(null).security.resetPassword({ token, password: "a-brand-new-password" })).toEqual({ role: "merchant" });
    await expect(signInMerchant(db(), { email, password }, freshIp())).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
    await expect(signInMerchant(db(), { email, password: "a-brand-new-password" }, freshIp())).resolves.toMatchObject({ email });

    // Single use, even with another password.
    const again = await failure(caller(null).security.resetPassword({ token, password: "yet-another-password" }));
    expect(again.code).toBe("BAD_REQUEST");
    expect(again.message).toMatch(/expires after 30 minutes and works once/);
    await expect(signInMerchant(db(), { email, password: "a-brand-new-password" }, freshIp())).resolves.toMatchObject({ email });
  });

  it("expires the link after 30 minutes", async () => {
    const { email } = await signup();
    await caller(null, { ip: freshIp() }).security.requestPasswordReset({ email });
    const token = tokenFrom((await lastEmailTo(email))!.body!);
    const { createdAt } = await db().passwordResetToken.findUniqueOrThrow({ where: { tokenHash: sha256(token) } });
    await expect(resetPassword(db(), { token, password: "too-late-password" }, new Date(createdAt.getTime() + 30 * 60_000))).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    await expect(resetPassword(db(), { token, password: "just-in-time-pw" }, new Date(createdAt.getTime() + 29 * 60_000 + 59_000))).resolves.toEqual({
      role: "merchant",
    });
    await expect(signInMerchant(db(), { email, password: "just-in-time-pw" }, freshIp())).resolves.toMatchObject({ email });
  });

  it("tells the reset page at once whether its link still works, without using it up", async () => {
    const { email } = await signup();
    await caller(null, { ip: freshIp() }).security.requestPasswordReset({ email });
    const token = tokenFrom((await lastEmailTo(email))!.body!);
    expect(await caller(null).security.checkResetLink({ token })).toEqual({ usable: true });
    expect(await caller(null).security.checkResetLink({ token })).toEqual({ usable: true });
    // Checking did not claim it: the password can still be set with it.
    expect(await caller(null).security.resetPassword({ token, password: "checked-then-set" })).toEqual({ role: "merchant" });

    const used = await failure(caller(null).security.checkResetLink({ token }));
    expect(used.code).toBe("BAD_REQUEST");
    expect(used.message).toMatch(/expires after 30 minutes and works once/);
    expect((await failure(caller(null).security.checkResetLink({ token: "A".repeat(43) }))).code).toBe("BAD_REQUEST");

    await caller(null, { ip: freshIp() }).security.requestPasswordReset({ email });
    const fresh = tokenFrom((await lastEmailTo(email))!.body!);
    await db().passwordResetToken.update({ where: { tokenHash: sha256(fresh) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await failure(caller(null).security.checkResetLink({ token: fresh }))).message).toMatch(/expires after 30 minutes/);
  });

  it("refuses made-up tokens", async () => {
    expect((await failure(caller(null).security.resetPassword({ token: "A".repeat(43), password: "whatever-password" }))).code).toBe("BAD_REQUEST");
  });

  it("answers the same for unknown emails and sends them nothing", async () => {
    const { email } = await signup();
    const ip = freshIp();
    const before = await db().emailMessage.count();
    const known = await caller(null, { ip }).security.requestPasswordReset({ email });
    const unknown = await caller(null, { ip }).security.requestPasswordReset({ email: "nobody-here@security.example" });
    // An operator reset for a merchant's email is an unknown email too.
    const wrongRole = await caller(null, { ip }).security.requestPasswordReset({ email, as: "admin" });
    expect(unknown).toEqual(known);
    expect(wrongRole).toEqual(known);
    expect(await db().emailMessage.count()).toBe(before + 1);
    expect(await db().emailMessage.count({ where: { to: "nobody-here@security.example" } })).toBe(0);
  });

  it("limits reset emails per account (silently) and requests per client IP", async () => {
    const { email } = await signup();
    const ip = freshIp();
    for (let i = 0; i < RESET_EMAILS_PER_ACCOUNT + 2; i++) {
      expect(await caller(null, { ip }).security.requestPasswordReset({ email })).toEqual({ ok: true });
    }
    expect(await db().emailMessage.count({ where: { to: email } })).toBe(RESET_EMAILS_PER_ACCOUNT);
    for (let i = RESET_EMAILS_PER_ACCOUNT + 2; i < RESET_REQUESTS_PER_IP; i++) {
      await caller(null, { ip }).security.requestPasswordReset({ email: `someone${i}@security.example` });
    }
    // Past the IP's limit, known and unknown emails alike get 429.
    const limited = await failure(caller(null, { ip }).security.requestPasswordReset({ email: "nobody@security.example" }));
    expect(limited).toMatchObject({ code: "TOO_MANY_REQUESTS", appCode: "RATE_LIMITED" });
    const limitedKnown = await failure(caller(null, { ip }).security.requestPasswordReset({ email: (await signup()).email }));
    expect(limitedKnown).toMatchObject({ code: "TOO_MANY_REQUESTS", appCode: "RATE_LIMITED" });
    // Another client is not affected.
    const other = await signup();
    await caller(null, { ip: freshIp() }).security.requestPasswordReset({ email: other.email });
    expect(await db().emailMessage.count({ where: { to: other.email } })).toBe(1);
  });

  it("keeps mail in the outbox for operators and logs it in development, never in production", async () => {
    const { email } = await signup();
    stderr = [];
    await caller(null, { ip: freshIp() }).security.requestPasswordReset({ email });
    const msg = (await lastEmailTo(email))!;
    const token = tokenFrom(msg.body!);
    expect(stderr.join("")).toContain(token);

    const admin = await createAdmin(db(), `ops${seq++}@parakh.example`, "operator-password");
    const list = await caller({ id: admin.adminId, email: admin.email, role: "admin" }).admin.emails({});
    expect(list.items.find((m) => m.id === msg.id)).toMatchObject({ to: email, subject: "Reset your Parakh password", status: "OUTBOX", body: msg.body });
    expect(list.items[0]!.createdAt >= list.items[list.items.length - 1]!.createdAt).toBe(true);
    expect((await failure(caller({ id: "mer_x", email, role: "merchant" }).admin.emails({}))).code).toBe("FORBIDDEN");

    const production = { ...getServices(), config: configFrom({ ...process.env, NODE_ENV: "production" }) };
    stderr = [];
    await caller(null, { ip: freshIp(), services: production }).security.requestPasswordReset({ email });
    const prodMsg = (await lastEmailTo(email))!;
    expect(prodMsg.id).not.toBe(msg.id);
    expect(stderr.join("")).toContain(prodMsg.id);
    expect(stderr.join("")).not.toContain(tokenFrom(prodMsg.body!));
    expect(stderr.join("")).not.toContain("reset-password");
  });

  it("resets operators' passwords the same way and ends their sessions", async () => {
    const admin = await createAdmin(db(), `root${seq++}@parakh.example`, "operator-password");
    const session = { id: admin.adminId, email: admin.email, role: "admin" as const, sessionVersion: 0 };
    await expect(caller(session).admin.actions({})).resolves.toBeTruthy();
    await caller(null, { ip: freshIp() }).security.requestPasswordReset({ email: admin.email, as: "admin" });
    const token = tokenFrom((await lastEmailTo(admin.email))!.body!);
    expect(await caller(null).security.resetPassword({ token, password: "new-operator-password" })).toEqual({ role: "admin" });
    await expect(signInAdmin(db(), { email: admin.email, password: "new-operator-password" }, freshIp())).resolves.toMatchObject({
      role: "admin",
      sessionVersion: 1,
    });
    expect((await failure(caller(session).admin.actions({}))).code).toBe("UNAUTHORIZED");
    await expect(caller({ ...session, sessionVersion: 1 }).admin.actions({})).resolves.toBeTruthy();
  });
});

describe("email over SMTP", () => {
  let smtp: SmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.close();
  });

  it("sends the reset link through SMTP_URL and keeps no body", async () => {
    const { email } = await signup();
    const services = { ...getServices(), config: configFrom({ ...process.env, SMTP_URL: smtp.url, EMAIL_FROM: "Parakh <auth@parakh.test>" }) };
    const seen = smtp.messages.length;
    expect(await caller(null, { ip: freshIp(), services }).security.requestPasswordReset({ email })).toEqual({ ok: true });
    const mail = await smtp.waitForMessage(seen);
    expect(mail.from).toBe("auth@parakh.test");
    expect(mail.to).toEqual([email]);
    expect(mail.data).toMatch(/^Subject: Reset your Parakh password\r$/m);
    // The body may be quoted-printable (soft line breaks, =3D for "=").
    const text = mail.data.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    expect(text).toContain("within 30 minutes");
    const token = tokenFrom(text);
    const row = await waitFor(async () => {
      const r = await lastEmailTo(email);
      return r?.status === "SENT" ? r : null;
    });
    expect(row).toMatchObject({ body: null, error: null });
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(await db().passwordResetToken.count({ where: { tokenHash: sha256(token) } })).toBe(1);
    await expect(caller(null).security.resetPassword({ token, password: "smtp-delivered-pw" })).resolves.toEqual({ role: "merchant" });
  });

  it("records a delivery the SMTP server never took", async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const config = configFrom({ ...process.env, SMTP_URL: `smtp://127.0.0.1:${port}` });
    const sent = await sendEmail(db(), config, { to: "ghost@security.example", subject: "Hello", text: "Nobody will read this." });
    await sent.delivered;
    const row = await db().emailMessage.findUniqueOrThrow({ where: { id: sent.id } });
    expect(row.status).toBe("FAILED");
    expect(row.error).toMatch(/ECONNREFUSED/);
    expect(row.body).toBeNull();
  });
});

describe("sign-in lock per email and client", () => {
  const lockFrom = async (email: string, ip: string) => {
    for (let i = 1; i < LOCK_AFTER; i++)
      await expect(signInMerchant(db(), { email, password: "wrong-password" }, ip)).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
    await expect(signInMerchant(db(), { email, password: "wrong-password" }, ip)).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
  };

  it("locks only the client that failed: the owner elsewhere still signs in", async () => {
    const { email, password } = await signup();
    const stranger = freshIp();
    await lockFrom(email, stranger);
    await expect(signInMerchant(db(), { email, password }, stranger)).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
    await expect(signInMerchant(db(), { email, password }, freshIp())).resolves.toMatchObject({ email });
    // The owner's success does not lift the stranger's lock.
    await expect(signInMerchant(db(), { email, password }, stranger)).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
  }, 30_000);

  it("locks unknown emails the same way, so the lock reveals no accounts", async () => {
    await lockFrom("no-such-owner@security.example", freshIp());
  }, 30_000);

  it("unlocks through the reset email, which also ends every session", async () => {
    const { email, merchantId, session } = await signup();
    const ip = freshIp();
    await lockFrom(email, ip);
    await caller(null, { ip }).security.requestPasswordReset({ email });
    const token = tokenFrom((await lastEmailTo(email))!.body!);
    await caller(null, { ip }).security.resetPassword({ token, password: "unlocked-password" });
    await expect(signInMerchant(db(), { email, password: "unlocked-password" }, ip)).resolves.toMatchObject({ id: merchantId, sessionVersion: 1 });
    expect((await failure(caller(session).account.me())).code).toBe("UNAUTHORIZED");
  }, 30_000);

  it("counts parallel guesses before checking them, so no more than the lock allows are checked", async () => {
    const { email, password } = await signup();
    // Nine simultaneous tries, all with the right password: only the first LOCK_AFTER are checked at
    // all (had they been wrong, the rest would have been guesses past the lock).
    const results = await Promise.allSettled(Array.from({ length: LOCK_AFTER + 4 }, () => signInMerchant(db(), { email, password }, freshIpFor(email))));
    const codes = results.map((r) => (r.status === "rejected" ? (r.reason as { code: string }).code : "OK"));
    expect(codes.filter((c) => c === "OK").length).toBeGreaterThanOrEqual(1);
    expect(codes.filter((c) => c === "OK").length).toBeLessThanOrEqual(LOCK_AFTER);
    expect(codes.filter((c) => c !== "OK").every((c) => c === "ACCOUNT_LOCKED")).toBe(true);
  }, 30_000);

  it("does not let a code-less sign-in clear wrong two-factor codes", async () => {
    const { email, password, session } = await signup();
    const { proof: reauth } = await caller(session).security.confirmPassword({ password });
    const setup = await caller(session).account.totpSetup({ reauth });
    await caller(session).account.totpEnable({ code: totpAt(setup.secret, Date.now()), reauth });
    const ip = freshIp();
    for (let i = 1; i < LOCK_AFTER; i++) {
      await expect(signInMerchant(db(), { email, password, code: "abc-not-a-code" }, ip)).rejects.toMatchObject({ code: "TOTP_INVALID" });
      await expect(signInMerchant(db(), { email, password }, ip)).rejects.toMatchObject({ code: "TOTP_REQUIRED" });
    }
    await expect(signInMerchant(db(), { email, password, code: "abc-not-a-code" }, ip)).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
  }, 30_000);

  it("keeps the per-IP cap across emails", async () => {
    const ip = freshIp();
    for (let i = 0; i < 30; i++) {
      await expect(signInMerchant(db(), { email: `spray${i}@security.example`, password: "wrong-password" }, ip)).rejects.toMatchObject({
        code: "INVALID_CREDENTIALS",
      });
    }
    const { email, password } = await signup();
    await expect(signInMerchant(db(), { email, password }, ip)).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    await expect(signInMerchant(db(), { email, password }, freshIp())).resolves.toMatchObject({ email });
  }, 60_000);
});

/** A browser's session cookie, as next-auth makes it at sign-in (`sid`: the session's own id). */
const cookieFor = async (s: { id: string; email: string; role: "merchant" | "admin"; sessionVersion?: number }, sid?: string) =>
  `next-auth.session-token=${await encode({
    token: { sub: s.id, role: s.role, email: s.email, ...(s.sessionVersion === undefined ? {} : { sv: s.sessionVersion }), ...(sid ? { sid } : {}) },
    secret: getConfig().secrets.nextAuthSecret,
  })}`;
/** The dashboard's tRPC route as a browser calls it: the session from its cookie. */
const trpc = async (method: "GET" | "POST", proc: string, cookie: string, input?: unknown) => {
  const url = `http://localhost/api/trpc/${proc}${method === "GET" && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ""}`;
  const headers: Record<string, string> = { cookie, host: "localhost", "x-parakh-csrf": "1", "x-parakh-client-ip": "192.0.2.10" };
  if (method === "POST") headers["content-type"] = "application/json";
  const req = new NextRequest(url, { method, headers, body: method === "POST" ? JSON.stringify(input ?? {}) : undefined });
  const res = await (method === "GET" ? trpcGet : trpcPost)(req);
  return {
    status: res.status,
    body: (await res.json()) as {
      result?: { data: unknown };
      error?: { message: string; data: { fieldErrors?: Record<string, string>; appCode?: string } };
    },
  };
};
const csv = async (cookie: string) =>
  (await exportCsv(new NextRequest("http://localhost/api/dashboard/payments/export?mode=sandbox", { headers: { cookie } }))).status;

describe("revocable sessions", () => {
  it("sign out everywhere refuses every older session on its next request", async () => {
    const { email, password } = await signup();
    const signedIn = await signInMerchant(db(), { email, password }, freshIp());
    expect(signedIn.sessionVersion).toBe(0);
    const laptop = await cookieFor(signedIn);
    const phone = await cookieFor(signedIn);
    // A token from before session versions counts as version 0.
    const legacy = await cookieFor({ ...signedIn, sessionVersion: undefined });
    for (const c of [laptop, phone, legacy]) expect((await trpc("GET", "account.me", c)).status).toBe(200);
    expect(await csv(laptop)).toBe(200);

    expect((await trpc("POST", "security.signOutEverywhere", laptop)).status).toBe(200);
    for (const c of [laptop, phone, legacy]) {
      const res = await trpc("GET", "account.me", c);
      expect(res.status).toBe(401);
      expect(res.body.error?.message).toMatch(/session has ended/);
    }
    expect((await trpc("POST", "keys.create", phone, { mode: "sandbox", label: "after sign-out" })).status).toBe(401);
    expect(await csv(phone)).toBe(401);

    const again = await signInMerchant(db(), { email, password }, freshIp());
    expect(again.sessionVersion).toBe(1);
    expect((await trpc("GET", "account.me", await cookieFor(again))).status).toBe(200);
  });

  it("changes the password only with the current one, then ends every session", async () => {
    const { email, password } = await signup();
    const signedIn = await signInMerchant(db(), { email, password }, freshIp());
    const browser = await cookieFor(signedIn);
    const other = await cookieFor(signedIn);

    const wrong = await trpc("POST", "security.changePassword", browser, { currentPassword: "not-my-password", newPassword: "the-next-password" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error?.data.fieldErrors?.currentPassword).toMatch(/not right/);
    const same = await trpc("POST", "security.changePassword", browser, { currentPassword: password, newPassword: password });
    expect(same.status).toBe(400);
    expect((await trpc("GET", "account.me", other)).status).toBe(200);

    expect((await trpc("POST", "security.changePassword", browser, { currentPassword: password, newPassword: "the-next-password" })).status).toBe(200);
    expect((await trpc("GET", "account.me", other)).status).toBe(401);
    expect((await trpc("GET", "account.me", browser)).status).toBe(401);
    expect(await csv(other)).toBe(401);
    await expect(signInMerchant(db(), { email, password }, freshIp())).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
    const fresh = await signInMerchant(db(), { email, password: "the-next-password" }, freshIp());
    expect((await trpc("GET", "account.me", await cookieFor(fresh))).status).toBe(200);
  });

  it("sends a revoked session from a dashboard page back to sign-in", async () => {
    const { email, password, merchantId } = await signup();
    const signedIn = await signInMerchant(db(), { email, password }, freshIp());
    nextAuthSession.current = { user: { id: merchantId, email, name: "Lock Smiths", role: "merchant", sessionVersion: signedIn.sessionVersion } };
    await expect(requireUser("merchant", "/dashboard/keys")).resolves.toMatchObject({ id: merchantId });
    await caller({ ...signedIn }).security.signOutEverywhere();
    await expect(requireUser("merchant", "/dashboard/keys")).rejects.toThrow("REDIRECT /login?next=%2Fdashboard%2Fkeys&ended=1");
    nextAuthSession.current = null;
    await expect(requireUser("merchant", "/dashboard")).rejects.toThrow("REDIRECT /login?next=%2Fdashboard");
  });
});

describe("suspended merchant", () => {
  // Public procedures (no session) and the operator area are not the merchant's dashboard.
  const PUBLIC = new Set([
    "account.signup",
    "security.requestPasswordReset",
    "security.checkResetLink",
    "security.resetPassword",
    "checkout.pay",
    "checkout.cardHandOff",
    "checkout.cancel",
    "checkout.abandon",
    "checkout.simulate",
  ]);
  const procedures = Object.entries(dashboardRouter._def.procedures) as unknown as [string, { _def: { type: string } }][];
  const merchantMutations = procedures
    .filter(([name, p]) => p._def.type === "mutation" && !name.startsWith("admin.") && !PUBLIC.has(name))
    .map(([name]) => name);
  const call = (c: ReturnType<typeof caller>, name: string, input: unknown) =>
    (name.split(".").reduce<unknown>((acc, seg) => (acc as Record<string, unknown>)[seg], c) as (i: unknown) => Promise<unknown>)(input);

  it("covers the mutations that matter, and the allow-list names real procedures", () => {
    for (const name of [
      "keys.create",
      "keys.revealSigningSecret",
      "keys.rotateSigningSecret",
      "whitelist.add",
      "whitelist.setEnforcement",
      "webhooks.create",
      "account.updateProfile",
    ]) {
      expect(merchantMutations).toContain(name);
    }
    for (const name of ALLOWED_WHILE_SUSPENDED) expect(merchantMutations).toContain(name);
  });

  it("reads its data, but every merchant mutation is refused except securing the account", async () => {
    const { merchantId, email, password, session } = await signup();
    const keysBefore = await db().apiKey.count({ where: { merchantId } });
    await db().merchant.update({ where: { id: merchantId }, data: { status: "SUSPENDED" } });
    const c = caller(session);

    await expect(c.account.me()).resolves.toMatchObject({ status: "SUSPENDED" });
    await expect(c.keys.list({ mode: "sandbox" })).resolves.toBeTruthy();
    await expect(c.whitelist.list()).resolves.toBeTruthy();

    for (const name of merchantMutations.filter((n) => !ALLOWED_WHILE_SUSPENDED.has(n))) {
      const err = await failure(
        call(c, name, { mode: "sandbox", label: "x", ip: "0.0.0.0/0", enforceOnAllApis: true, url: "https://a.example/hook", events: ["*"] }),
      );
      expect(err, name).toMatchObject({ code: "FORBIDDEN", appCode: "MERCHANT_SUSPENDED" });
      expect(err.message, name).toMatch(/suspended.*read-only.*support/i);
    }
    expect(await db().apiKey.count({ where: { merchantId } })).toBe(keysBefore);
    expect(await db().ipWhitelistEntry.count({ where: { merchantId } })).toBe(0);

    await expect(c.security.changePassword({ currentPassword: password, newPassword: "suspended-but-safe" })).resolves.toEqual({ ok: true });
    const again = await signInMerchant(db(), { email, password: "suspended-but-safe" }, freshIp());
    await expect(caller({ ...session, sessionVersion: again.sessionVersion }).security.signOutEverywhere()).resolves.toEqual({ ok: true });

    // The same calls work once reinstated: the refusal was the suspension's.
    await db().merchant.update({ where: { id: merchantId }, data: { status: "ACTIVE" } });
    await expect(
      caller({ ...session, sessionVersion: again.sessionVersion + 1 }).whitelist.add({ ip: "203.0.113.0/24", label: "office" }),
    ).resolves.toBeTruthy();
  });
});

describe("two-factor set-up", () => {
  it("shows a QR code of the otpauth URI beside the secret for manual entry", async () => {
    const { session, email, password } = await signup();
    const { proof: reauth } = await caller(session).security.confirmPassword({ password });
    const setup = await caller(session).account.totpSetup({ reauth });
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.otpauthUrl).toContain(`secret=${setup.secret}`);
    expect(setup.otpauthUrl).toContain(encodeURIComponent(email));
    expect(setup.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(setup.qrCode.split(",")[1]!, "base64").toString("utf8");
    expect(svg).toMatch(/^<svg[^>]*viewBox/);
    // The image is the QR code of exactly this URI.
    expect(svg).toBe(await QRCode.toString(setup.otpauthUrl, { type: "svg", margin: 2, errorCorrectionLevel: "M" }));
    expect(svg).not.toBe(await QRCode.toString(setup.otpauthUrl.replace(setup.secret, "A".repeat(32)), { type: "svg", margin: 2, errorCorrectionLevel: "M" }));
  });
});

describe("password confirmation for sensitive acts", () => {
  const reauthOf = async (session: Session, password: string, ip?: string) => (await caller(session, { ip }).security.confirmPassword({ password })).proof;

  it("refuses revealing or rotating the signing secret, live keys, two-factor set-up and new recovery codes without one", async () => {
    const { merchantId, session } = await signup();
    await db().merchant.update({ where: { id: merchantId }, data: { liveEnabled: true } });
    const c = caller(session);
    const liveKey = await db().apiKey.create({
      data: { id: `key_${merchantId}_l`, merchantId, mode: "live", publicKey: `pk_live_${merchantId}`, secretHash: `h_${merchantId}`, secretHint: "sk_live_x" },
    });
    for (const [name, call] of [
      ["keys.revealSigningSecret", () => c.keys.revealSigningSecret({ mode: "sandbox" })],
      ["keys.revealSigningSecret (live)", () => c.keys.revealSigningSecret({ mode: "live" })],
      ["keys.rotateSigningSecret", () => c.keys.rotateSigningSecret({ mode: "sandbox" })],
      ["keys.create (live)", () => c.keys.create({ mode: "live", label: "Production" })],
      ["keys.rotate (live)", () => c.keys.rotate({ mode: "live", keyId: liveKey.id, graceSeconds: 0 })],
      ["account.totpSetup", () => c.account.totpSetup({})],
      ["account.totpEnable", () => c.account.totpEnable({ code: "123456" })],
      ["account.regenerateRecoveryCodes", () => c.account.regenerateRecoveryCodes({})],
      ["a made-up proof", () => c.keys.revealSigningSecret({ mode: "sandbox", reauth: `${Date.now() + 60_000}.${"0".repeat(64)}` })],
    ] as const) {
      const err = await failure(call());
      expect(err, name).toMatchObject({ code: "FORBIDDEN", appCode: "REAUTH_REQUIRED" });
      expect(err.message, name).toMatch(/confirm your password/i);
    }
    // Nothing happened: the secret is the one it was, no live key was made.
    expect(await db().signingSecret.count({ where: { merchantId } })).toBe(1);
    expect(await db().apiKey.count({ where: { merchantId, mode: "live" } })).toBe(1);
    // A sandbox key is not a sensitive act.
    await expect(c.keys.create({ mode: "sandbox", label: "Test server" })).resolves.toMatchObject({ label: "Test server" });
  });

  it("answers a wrong password with a clear field error, and the right one with a proof that unlocks those acts", async () => {
    const { merchantId, session, password } = await signup();
    await db().merchant.update({ where: { id: merchantId }, data: { liveEnabled: true } });
    const wrong = await failure(caller(session).security.confirmPassword({ password: "not-my-password" }));
    expect(wrong).toMatchObject({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR", fields: ["password"], message: "That password is not right." });
    const empty = await failure(caller(session).security.confirmPassword({ password: "" }));
    expect(empty).toMatchObject({ code: "BAD_REQUEST", fields: ["password"] });

    const reauth = await reauthOf(session, password);
    const c = caller(session);
    const { secret } = await c.keys.revealSigningSecret({ mode: "sandbox", reauth });
    expect(secret).toMatch(/^whsec_/);
    const rotated = await c.keys.rotateSigningSecret({ mode: "sandbox", reauth });
    expect(rotated.secret).not.toBe(secret);
    const live = await c.keys.create({ mode: "live", label: "Production", reauth });
    expect(live.secretKey).toMatch(/^sk_live_/);
    await expect(c.keys.rotate({ mode: "live", keyId: live.id, graceSeconds: 0, reauth })).resolves.toMatchObject({ oldKey: { revoked: true } });
    const setup = await c.account.totpSetup({ reauth });
    await expect(c.account.totpEnable({ code: totpAt(setup.secret, Date.now()), reauth })).resolves.toMatchObject({ recoveryCodes: expect.any(Array) });
  });

  it("is good in its own session only, for 10 minutes, and ends with the session's version", async () => {
    const { merchantId, session, password } = await signup();
    const reauth = await reauthOf(session, password);
    const { requireReauth } = await import("@/server/services/accounts/reauth");
    const at = { merchantId, sessionVersion: 0 };
    expect(() => requireReauth(at, reauth)).not.toThrow();
    expect(() => requireReauth(at, reauth, Date.now() + 9 * 60_000)).not.toThrow();
    expect(() => requireReauth(at, reauth, Date.now() + 10 * 60_000 + 1000)).toThrow(/expired/);
    // Another session of the same merchant, or after sign out everywhere (version 1): refused.
    expect(() => requireReauth({ ...at, sessionId: "another-browser" }, reauth)).toThrow(/confirm your password/i);
    expect(() => requireReauth({ ...at, sessionVersion: 1 }, reauth)).toThrow(/confirm your password/i);
    // An edited expiry breaks the signature.
    const [expiry, mac] = reauth.split(".");
    expect(() => requireReauth(at, `${Number(expiry) + 60_000}.${mac}`)).toThrow(/confirm your password/i);
  });

  it("binds the proof to the browser's session through the route: another session's cookie cannot use it", async () => {
    const { email, password } = await signup();
    const signedIn = await signInMerchant(db(), { email, password }, freshIp());
    const laptop = await cookieFor(signedIn, "laptop-session");
    const phone = await cookieFor(signedIn, "phone-session");
    const confirmed = await trpc("POST", "security.confirmPassword", laptop, { password });
    expect(confirmed.status).toBe(200);
    const { proof } = confirmed.body.result!.data as { proof: string; expiresAt: string };
    expect((await trpc("POST", "keys.revealSigningSecret", laptop, { mode: "sandbox", reauth: proof })).status).toBe(200);
    const stolen = await trpc("POST", "keys.revealSigningSecret", phone, { mode: "sandbox", reauth: proof });
    expect(stolen.status).toBe(403);
    expect(stolen.body.error?.data.appCode).toBe("REAUTH_REQUIRED");
  });

  it("counts wrong passwords toward the sign-in lock of that client", async () => {
    const { email, password, session } = await signup();
    const ip = freshIp();
    for (let i = 1; i < LOCK_AFTER; i++) {
      expect(await failure(caller(session, { ip }).security.confirmPassword({ password: `wrong-${i}` }))).toMatchObject({ appCode: "VALIDATION_ERROR" });
    }
    const locked = await failure(caller(session, { ip }).security.confirmPassword({ password: "wrong-again" }));
    expect(locked).toMatchObject({ code: "TOO_MANY_REQUESTS", appCode: "RATE_LIMITED" });
    expect(locked.message).toMatch(/15 minutes/);
    // Locked for this client: the right password too, and sign-in from here.
    expect(await failure(caller(session, { ip }).security.confirmPassword({ password }))).toMatchObject({ appCode: "RATE_LIMITED" });
    await expect(signInMerchant(db(), { email, password }, ip)).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
    // Turning two-factor off guesses the same way.
    expect(await failure(caller(session, { ip }).account.totpDisable({ password }))).toMatchObject({ appCode: "RATE_LIMITED" });
  }, 30_000);
});

describe("recovery codes", () => {
  it("says how many are left, and new ones replace every old one", async () => {
    const { email, password, session } = await signup();
    const c = caller(session);
    expect((await c.account.me()).recoveryCodesLeft).toBeNull();
    const reauth = (await c.security.confirmPassword({ password })).proof;
    const setup = await c.account.totpSetup({ reauth });
    const { recoveryCodes: first } = await c.account.totpEnable({ code: totpAt(setup.secret, Date.now()), reauth });
    expect((await c.account.me()).recoveryCodesLeft).toBe(10);
    await expect(signInMerchant(db(), { email, password, code: first[0] }, freshIp())).resolves.toMatchObject({ email });
    expect((await c.account.me()).recoveryCodesLeft).toBe(9);

    expect(await failure(c.account.regenerateRecoveryCodes({}))).toMatchObject({ appCode: "REAUTH_REQUIRED" });
    const { recoveryCodes: fresh } = await c.account.regenerateRecoveryCodes({ reauth });
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => first.includes(code))).toEqual([]);
    expect((await c.account.me()).recoveryCodesLeft).toBe(10);
    // An old code that was never used stops working; a new one works once.
    await expect(signInMerchant(db(), { email, password, code: first[1] }, freshIp())).rejects.toMatchObject({ code: "TOTP_INVALID" });
    await expect(signInMerchant(db(), { email, password, code: fresh[0] }, freshIp())).resolves.toMatchObject({ email });
    expect((await c.account.me()).recoveryCodesLeft).toBe(9);
  });

  it("has none to replace while two-factor sign-in is off", async () => {
    const { password, session } = await signup();
    const reauth = (await caller(session).security.confirmPassword({ password })).proof;
    expect(await failure(caller(session).account.regenerateRecoveryCodes({ reauth }))).toMatchObject({ code: "CONFLICT" });
  });
});
