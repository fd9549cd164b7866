import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_BULK_POLL_LIMIT_MS, DEFAULT_JOB_LEASE_MS, MAX_BATCH_RETRY_BUDGET_MS } from "@/lib/limits";
import { dataDirFromEnv, databaseUrlFromEnv, oneWriterProcess } from "@/server/db/provider";

/**
 * Every setting in one place, validated at start-up. Each has a default that serves the embedded
 * single-machine run; secrets not given in the environment are generated once and kept in the data
 * folder (DATA_DIR/secrets.json, mode 0600).
 */
const bool = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");

const base64Key = z.string().refine((v) => Buffer.from(v, "base64").length === 32, "must be 32 bytes, base64-encoded");

export type LiveVendor = "cashfree" | "setu";

/** A family's vendors, comma-separated, first preferred, each once; `none` alone for none. */
const vendorList = (allowed: readonly LiveVendor[]) =>
  z
    .string()
    .transform((v) => v.split(",").map((name) => name.trim().toLowerCase()))
    .refine((names) => (names.length === 1 && names[0] === "none") || names.every((n) => (allowed as readonly string[]).includes(n)), {
      message: `must be none, or ${allowed.join(", ")} separated by commas`,
    })
    .refine((names) => new Set(names).size === names.length, { message: "names a vendor twice" })
    .transform((names) => (names[0] === "none" ? [] : (names as LiveVendor[])));

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("data"),
  DATABASE_URL: z.string().min(1).optional(),
  /** FULL: a committed record survives a power loss too (measured in docs/performance.md); NORMAL: a process crash only. */
  SQLITE_SYNCHRONOUS: z.enum(["FULL", "NORMAL"]).default("FULL"),
  /** Public origin of this app; the API's four base URLs default to it. */
  APP_URL: z.url().optional(),
  API_BASE_URL: z.url().optional(),
  PAYMENT_BASE_URL: z.url().optional(),
  CHECKOUT_URL: z.url().optional(),
  KYC_BASE_URL: z.url().optional(),
  /** Comma-separated addresses or CIDR ranges whose X-Forwarded-For is believed. */
  TRUSTED_PROXIES: z.string().default(""),
  /** Requests per second per API key; 0 turns the limit off. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(0).default(10_000),
  /** Requests with invalid credentials per client address per minute before 429 (0 = no limit). */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  /** Dashboard sign-ups per client address per hour (each creates keys and a funded sandbox wallet). */
  SIGNUPS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).default(10),
  /** scrypt's cost for new password hashes, as log2 N: each step doubles a sign-in's work and an attacker's per guess. */
  PASSWORD_HASH_COST: z.coerce.number().int().min(12).max(16).default(15),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).default(2557),
  /** Days sandbox batches (items and results), sandbox verification rows and sandbox request-log records are kept. */
  SANDBOX_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Batch items one merchant may submit in sandbox in any 24 hours (rejected items included). */
  SANDBOX_BATCH_ITEMS_PER_DAY: z.coerce.number().int().min(1).default(100_000),
  /** Days a KYC call's full result stays (encrypted) for the merchant to re-read; then only its masked summary. 0 keeps none. */
  KYC_RESULT_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  /** Aadhaar OTPs one number receives per minute and per 24 hours from every merchant of a mode together. */
  OTP_NUMBER_PER_MINUTE: z.coerce.number().int().min(1).max(60).default(1),
  OTP_NUMBER_PER_DAY: z.coerce.number().int().min(1).max(1000).default(10),
  /** OTPs a merchant may send per minute (per mode) that no verify-otp has followed. */
  OTP_UNVERIFIED_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(100),
  /** Longest the audit writer waits to group records into one commit. */
  AUDIT_FLUSH_MS: z.coerce.number().min(0).max(1000).default(0),
  AUTH_CACHE_POLL_MS: z.coerce.number().int().min(50).max(1000).default(250),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Who answers live PAN, EPFO and KYC calls; `none` answers them 503 SOURCE_UNAVAILABLE. */
  LIVE_VERIFICATION_PROVIDER: z.enum(["none", "cashfree"]).default("none"),
  /** Cashfree Secure ID; its test host is https://sandbox.cashfree.com/verification. */
  CASHFREE_VERIFICATION_BASE_URL: z.url().default("https://api.cashfree.com/verification"),
  CASHFREE_VERIFICATION_CLIENT_ID: z.string().trim().min(1).optional(),
  CASHFREE_VERIFICATION_CLIENT_SECRET: z.string().trim().min(1).optional(),
  /** Each family's live vendors in the order they are tried (comma-separated; default: LIVE_VERIFICATION_PROVIDER). */
  LIVE_PAN_VENDORS: vendorList(["cashfree", "setu"]).optional(),
  LIVE_BANK_VENDORS: vendorList(["cashfree", "setu"]).optional(),
  LIVE_EPFO_VENDORS: vendorList(["cashfree"]).optional(),
  LIVE_AADHAAR_VENDORS: vendorList(["cashfree"]).optional(),
  /** Setu's data APIs (PAN, bank account PennyLess); its sandbox host is https://dg-sandbox.setu.co. */
  SETU_BASE_URL: z.url().default("https://dg.setu.co"),
  SETU_CLIENT_ID: z.string().trim().min(1).optional(),
  SETU_CLIENT_SECRET: z.string().trim().min(1).optional(),
  SETU_PAN_PRODUCT_INSTANCE_ID: z.string().trim().min(1).optional(),
  SETU_BANK_PRODUCT_INSTANCE_ID: z.string().trim().min(1).optional(),
  /** Share of the whole-call deadline a vendor that is not the family's last may use of what is left. */
  UPSTREAM_FIRST_VENDOR_SHARE: z.coerce.number().gt(0).max(1).default(0.6),
  /** Who takes live payments and refunds; `none` answers them 503 SERVICE_UNAVAILABLE. */
  LIVE_PAYMENT_PROVIDER: z.enum(["none", "cashfree"]).default("none"),
  /** Cashfree Payment Gateway; its test host is https://sandbox.cashfree.com/pg. */
  CASHFREE_PG_BASE_URL: z.url().default("https://api.cashfree.com/pg"),
  CASHFREE_PG_CLIENT_ID: z.string().trim().min(1).optional(),
  /** Also the key of the vendor's webhook signatures. */
  CASHFREE_PG_CLIENT_SECRET: z.string().trim().min(1).optional(),
  /** One deadline for a whole verification call to an upstream: connect, answer and body. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8_000),
  /** Calls in flight to one upstream family on this server (all its workers together); past it a call is refused at once. */
  UPSTREAM_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(64),
  // Calls started a second per vendor and family, server-wide (0: no limit): set it under the vendor's own rate limit.
  UPSTREAM_MAX_RPS: z.coerce.number().int().min(0).max(1_000_000).default(0),
  ENCRYPTION_KEY: base64Key.optional(),
  HASH_KEY: base64Key.optional(),
  NEXTAUTH_SECRET: z.string().min(32).optional(),
  NEXTAUTH_URL: z.url().optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /** Connection hygiene: slow or silent clients are cut off, and no address holds every socket. */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(10_000),
  HTTP_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(256).default(512),
  /** Processes serving requests (node:cluster); default: every available core in production, 1 otherwise. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  JOBS_ENABLED: bool.default(true),
  /** How long a background job (and a batch chunk) stays claimed by a worker that stopped answering. */
  JOB_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(DEFAULT_JOB_LEASE_MS),
  /** How long a batch item's transient source errors (503/504) are retried (default and most: MAX_BATCH_RETRY_BUDGET_MS). */
  BATCH_RETRY_BUDGET_MS: z.coerce.number().int().min(0).max(MAX_BATCH_RETRY_BUDGET_MS).default(MAX_BATCH_RETRY_BUDGET_MS),
  /** How long a live PAN batch reads a bulk request back from the vendor before its items left go to single calls. */
  BATCH_BULK_POLL_LIMIT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(24 * 3_600_000)
    .default(DEFAULT_BULK_POLL_LIMIT_MS),
  /** Sandbox webhooks may go to loopback addresses (local development and tests); live never may. */
  WEBHOOK_SANDBOX_ALLOW_LOOPBACK: bool.optional(),
  /** Outgoing email (password resets), e.g. smtps://user:pass@smtp.example.com:465; unset keeps mail in the /admin outbox. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, "must be an smtp:// or smtps:// URL")
    .optional(),
  /** The From of outgoing email; defaults to no-reply at the app's host. */
  EMAIL_FROM: z.string().trim().min(3).max(254).optional(),
  /** Bearer token of GET /metrics (Prometheus); unset, the endpoint does not exist. */
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{32,512}$/, "must be 32 to 512 printable characters without spaces")
    .optional(),
  /** Where merchants write for help (e.g. a suspended account); defaults to support at the app's host. */
  SUPPORT_EMAIL: z.email().optional(),
});

/** Every setting's name: `.env.example` lists each one (a unit test holds it to that). */
export const SETTING_NAMES = Object.keys(EnvSchema.shape);

export interface Secrets {
  encryptionKey: string;
  hashKey: string;
  nextAuthSecret: string;
}

export type Config = ReturnType<typeof buildConfig>;

function loadOrCreateSecrets(dataDir: string, env: z.infer<typeof EnvSchema>): Secrets {
  const file = path.join(dataDir, "secrets.json");
  let stored: Partial<Secrets> = {};
  if (fs.existsSync(file)) {
    stored = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Secrets>;
  }
  const secrets: Secrets = {
    encryptionKey: env.ENCRYPTION_KEY ?? stored.encryptionKey ?? crypto.randomBytes(32).toString("base64"),
    hashKey: env.HASH_KEY ?? stored.hashKey ?? crypto.randomBytes(32).toString("base64"),
    nextAuthSecret: env.NEXTAUTH_SECRET ?? stored.nextAuthSecret ?? crypto.randomBytes(32).toString("base64url"),
  };
  const missing = !stored.encryptionKey || !stored.hashKey || !stored.nextAuthSecret;
  if (missing && !(env.ENCRYPTION_KEY && env.HASH_KEY && env.NEXTAUTH_SECRET)) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const toStore = { ...stored };
    if (!env.ENCRYPTION_KEY) toStore.encryptionKey = secrets.encryptionKey;
    if (!env.HASH_KEY) toStore.hashKey = secrets.hashKey;
    if (!env.NEXTAUTH_SECRET) toStore.nextAuthSecret = secrets.nextAuthSecret;
    fs.writeFileSync(file, JSON.stringify(toStore, null, 2), { mode: 0o600 });
  }
  return secrets;
}

/** Tightens a file or folder the server owns (it holds the database and secrets); a missing one is fine. */
export function restrictToOwner(target: string, mode: number) {
  try {
    if ((fs.statSync(/* turbopackIgnore: true */ target).mode & 0o777) !== mode) fs.chmodSync(/* turbopackIgnore: true */ target, mode);
  } catch {
    // not there yet, or not ours to change
  }
}

/** Loopback hosts may be reached over plain http (tests point the vendor's base URL at a fake). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (net.isIPv4(host)) return host.startsWith("127.");
  return host === "::1";
}

/**
 * The whole-call deadline of a payment processor call. Longer than a verification's: an order or a
 * refund that times out may still have been made, so Parakh waits for the vendor's answer longer.
 */
export const PAYMENTS_TIMEOUT_MS = 15_000;

/** Settings that only make sense together: a chosen vendor needs its credentials and a safe base URL. */
/** Each live verification family's vendors in the order they are tried: its own setting, else LIVE_VERIFICATION_PROVIDER. */
function familyVendors(env: z.infer<typeof EnvSchema>): Record<"pan" | "bank" | "epfo" | "aadhaar", LiveVendor[]> {
  const fallback: LiveVendor[] = env.LIVE_VERIFICATION_PROVIDER === "none" ? [] : [env.LIVE_VERIFICATION_PROVIDER];
  return {
    pan: env.LIVE_PAN_VENDORS ?? fallback,
    epfo: env.LIVE_EPFO_VENDORS ?? fallback,
    aadhaar: env.LIVE_AADHAAR_VENDORS ?? fallback,
    bank: env.LIVE_BANK_VENDORS ?? fallback,
  };
}

const FAMILY_VENDOR_SETTINGS = { pan: "LIVE_PAN_VENDORS", bank: "LIVE_BANK_VENDORS", epfo: "LIVE_EPFO_VENDORS", aadhaar: "LIVE_AADHAAR_VENDORS" } as const;

/** A vendor named for a family needs its credentials (and Setu its product instance for that family). */
function vendorCredentialProblems(env: z.infer<typeof EnvSchema>): string[] {
  const problems = new Set<string>();
  const vendors = familyVendors(env);
  for (const [family, names] of Object.entries(vendors) as [keyof typeof vendors, LiveVendor[]][]) {
    const chooser = env[FAMILY_VENDOR_SETTINGS[family]] ? FAMILY_VENDOR_SETTINGS[family] : "LIVE_VERIFICATION_PROVIDER";
    for (const vendor of names) {
      const needed: (keyof z.infer<typeof EnvSchema>)[] =
        vendor === "cashfree"
          ? ["CASHFREE_VERIFICATION_CLIENT_ID", "CASHFREE_VERIFICATION_CLIENT_SECRET"]
          : ["SETU_CLIENT_ID", "SETU_CLIENT_SECRET", family === "pan" ? "SETU_PAN_PRODUCT_INSTANCE_ID" : "SETU_BANK_PRODUCT_INSTANCE_ID"];
      for (const name of needed) if (!env[name]) problems.add(`${name}: required when ${chooser} names ${vendor}`);
    }
  }
  return [...problems];
}

function liveSourceProblems(env: z.infer<typeof EnvSchema>): string[] {
  const problems: string[] = [];
  for (const name of ["CASHFREE_VERIFICATION_BASE_URL", "CASHFREE_PG_BASE_URL", "SETU_BASE_URL"] as const) {
    const base = new URL(env[name]);
    if (base.protocol !== "https:" && !(base.protocol === "http:" && isLoopbackHost(base.hostname))) {
      problems.push(`${name}: must be https (plain http only for a loopback address)`);
    }
  }
  const verificationVendors = familyVendors(env);
  // Cashfree named by LIVE_VERIFICATION_PROVIDER keeps its own message (every family then defaults to it).
  if (env.LIVE_VERIFICATION_PROVIDER === "cashfree") {
    for (const name of ["CASHFREE_VERIFICATION_CLIENT_ID", "CASHFREE_VERIFICATION_CLIENT_SECRET"] as const) {
      if (!env[name]) problems.push(`${name}: required when LIVE_VERIFICATION_PROVIDER=cashfree`);
    }
  }
  for (const problem of vendorCredentialProblems(env)) {
    if (!problems.some((p) => p.startsWith(problem.split(":")[0]!))) problems.push(problem);
  }
  if (env.LIVE_PAYMENT_PROVIDER === "cashfree") {
    for (const name of ["CASHFREE_PG_CLIENT_ID", "CASHFREE_PG_CLIENT_SECRET"] as const) {
      if (!env[name]) problems.push(`${name}: required when LIVE_PAYMENT_PROVIDER=cashfree`);
    }
  }
  void verificationVendors;
  return problems;
}

/** Live vendors: who answers live verification and live payments, and how to reach them. */
function liveSettings(env: z.infer<typeof EnvSchema>) {
  return {
    liveVerification: {
      provider: env.LIVE_VERIFICATION_PROVIDER,
      /** Each family's vendors in the order they are tried (empty: live calls answer 503 SOURCE_UNAVAILABLE). */
      vendors: familyVendors(env),
      cashfree: {
        baseUrl: env.CASHFREE_VERIFICATION_BASE_URL.replace(/\/$/, ""),
        clientId: env.CASHFREE_VERIFICATION_CLIENT_ID ?? "",
        clientSecret: env.CASHFREE_VERIFICATION_CLIENT_SECRET ?? "",
      },
      setu: {
        baseUrl: env.SETU_BASE_URL.replace(/\/$/, ""),
        clientId: env.SETU_CLIENT_ID ?? "",
        clientSecret: env.SETU_CLIENT_SECRET ?? "",
        panProductInstanceId: env.SETU_PAN_PRODUCT_INSTANCE_ID ?? "",
        bankProductInstanceId: env.SETU_BANK_PRODUCT_INSTANCE_ID ?? "",
      },
      firstVendorShare: env.UPSTREAM_FIRST_VENDOR_SHARE,
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
      maxConcurrency: env.UPSTREAM_MAX_CONCURRENCY,
      maxRps: env.UPSTREAM_MAX_RPS,
    },
    livePayments: {
      provider: env.LIVE_PAYMENT_PROVIDER,
      cashfree: {
        baseUrl: env.CASHFREE_PG_BASE_URL.replace(/\/$/, ""),
        clientId: env.CASHFREE_PG_CLIENT_ID ?? "",
        clientSecret: env.CASHFREE_PG_CLIENT_SECRET ?? "",
      },
      timeoutMs: PAYMENTS_TIMEOUT_MS,
      maxConcurrency: env.UPSTREAM_MAX_CONCURRENCY,
      maxRps: env.UPSTREAM_MAX_RPS,
    },
  };
}

/** The settings checked, or the reasons they are not usable (thrown as one message). */
function parseSettings(source: NodeJS.ProcessEnv): z.infer<typeof EnvSchema> {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== "")));
  const lines = parsed.success ? liveSourceProblems(parsed.data).map((p) => `  ${p}`) : parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  if (!parsed.success || lines.length > 0) {
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** The address customers and vendors reach this deployment at. */
function appUrlOf(env: z.infer<typeof EnvSchema>): string {
  const publicHost = env.HOST === "0.0.0.0" || env.HOST === "::" ? "localhost" : env.HOST;
  return (env.APP_URL ?? env.NEXTAUTH_URL ?? `http://${publicHost}:${env.PORT}`).replace(/\/$/, "");
}

/**
 * The live vendors' settings alone, for tools that only read them (`providers check`): nothing is
 * written, the data folder and its secrets are not touched.
 */
export function liveSettingsFrom(source: NodeJS.ProcessEnv): Pick<Config, "liveVerification" | "livePayments" | "appUrl"> {
  const env = parseSettings(source);
  return { ...liveSettings(env), appUrl: appUrlOf(env) };
}

/**
 * What a deployment will get wrong without failing to start: live payments need an address the
 * vendor can post its webhooks to and send customers back to (`notify_url`, the return page), and
 * the checkout link merchants hand out must open on a customer's phone.
 */
export function settingWarnings(config: Pick<Config, "livePayments" | "appUrl">): string[] {
  if (config.livePayments.provider === "none") return [];
  const url = new URL(config.appUrl);
  if (url.protocol === "https:" && !isLoopbackHost(url.hostname)) return [];
  return [
    `APP_URL is ${config.appUrl}, but live payments are on (LIVE_PAYMENT_PROVIDER=${config.livePayments.provider}): the payment processor's webhooks (notify_url) and customers' returns go to that address, and checkout links carry it. Set APP_URL to this deployment's public https address.`,
  ];
}

function buildConfig(source: NodeJS.ProcessEnv) {
  const env = parseSettings(source);
  // The data folder is chosen at run time; the build must not trace the project through it.
  const storage = { DATA_DIR: env.DATA_DIR, DATABASE_URL: env.DATABASE_URL };
  const dataDir = dataDirFromEnv(storage);
  const databaseUrl = databaseUrlFromEnv(storage);
  const appUrl = appUrlOf(env);
  const secrets = loadOrCreateSecrets(dataDir, env);
  restrictToOwner(dataDir, 0o700);
  return {
    nodeEnv: env.NODE_ENV,
    isProduction: env.NODE_ENV === "production",
    port: env.PORT,
    host: env.HOST,
    dataDir,
    databaseUrl,
    sqliteSynchronous: env.SQLITE_SYNCHRONOUS,
    appUrl,
    baseUrl: (env.API_BASE_URL ?? appUrl).replace(/\/$/, ""),
    paymentBaseUrl: (env.PAYMENT_BASE_URL ?? appUrl).replace(/\/$/, ""),
    checkoutUrl: (env.CHECKOUT_URL ?? appUrl).replace(/\/$/, ""),
    kycBaseUrl: (env.KYC_BASE_URL ?? appUrl).replace(/\/$/, ""),
    trustedProxies: env.TRUSTED_PROXIES.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    rateLimitPerSecond: env.RATE_LIMIT_PER_SECOND,
    authFailuresPerMinute: env.AUTH_FAILURES_PER_MINUTE,
    signupsPerAddressPerHour: env.SIGNUPS_PER_ADDRESS_PER_HOUR,
    passwordHashCost: env.PASSWORD_HASH_COST,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    sandboxRetentionDays: env.SANDBOX_RETENTION_DAYS,
    sandboxBatchItemsPerDay: env.SANDBOX_BATCH_ITEMS_PER_DAY,
    kycResultRetentionDays: env.KYC_RESULT_RETENTION_DAYS,
    otpLimits: { numberPerMinute: env.OTP_NUMBER_PER_MINUTE, numberPerDay: env.OTP_NUMBER_PER_DAY, unverifiedPerMinute: env.OTP_UNVERIFIED_PER_MINUTE },
    auditFlushMs: env.AUDIT_FLUSH_MS,
    authCachePollMs: env.AUTH_CACHE_POLL_MS,
    logLevel: env.LOG_LEVEL,
    ...liveSettings(env),
    nextAuthUrl: env.NEXTAUTH_URL ?? appUrl,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      // Node requires the request timeout to cover the headers timeout.
      requestTimeoutMs: Math.max(env.HTTP_REQUEST_TIMEOUT_MS, env.HTTP_HEADERS_TIMEOUT_MS),
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      idleTimeoutMs: env.HTTP_IDLE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerIp: env.HTTP_MAX_CONNECTIONS_PER_IP,
    },
    webConcurrency: env.WEB_CONCURRENCY ?? defaultWebConcurrency(env.NODE_ENV, databaseUrl),
    jobsEnabled: env.JOBS_ENABLED,
    metricsToken: env.METRICS_TOKEN ?? null,
    batchRetryBudgetMs: env.BATCH_RETRY_BUDGET_MS,
    batchBulkPollLimitMs: env.BATCH_BULK_POLL_LIMIT_MS,
    jobLeaseMs: env.JOB_LEASE_MS,
    // Off by default in production: a merchant could otherwise probe this host's own services.
    webhookSandboxAllowLoopback: env.WEBHOOK_SANDBOX_ALLOW_LOOPBACK ?? env.NODE_ENV !== "production",
    smtpUrl: env.SMTP_URL,
    emailFrom: env.EMAIL_FROM ?? `Parakh <no-reply@${new URL(appUrl).hostname}>`,
    supportEmail: env.SUPPORT_EMAIL ?? `support@${new URL(appUrl).hostname}`,
    secrets,
  };
}

let cached: Config | undefined;

export function getConfig(): Config {
  cached ??= buildConfig(process.env);
  return cached;
}

/**
 * `PASSWORD_HASH_COST` alone: passwords are hashed by the server and by operator commands alike, and
 * reading it must not build the rest of the settings (which may generate the data folder's secrets).
 */
export function passwordHashCost(env: Record<string, string | undefined> = process.env): number {
  return EnvSchema.shape.PASSWORD_HASH_COST.parse(env.PASSWORD_HASH_COST);
}

/** For tests and tools that build a config from explicit values. */
export function configFrom(env: NodeJS.ProcessEnv): Config {
  return buildConfig(env);
}

/**
 * Every core in production on PostgreSQL. One process on SQLite (and in development): see
 * oneWriterProcess. WEB_CONCURRENCY set explicitly always wins.
 */
export function defaultWebConcurrency(nodeEnv: string | undefined, databaseUrl: string): number {
  if (nodeEnv !== "production" || oneWriterProcess(databaseUrl)) return 1;
  return os.availableParallelism();
}
