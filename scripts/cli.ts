import { parseArgs } from "node:util";
import { getConfig, liveSettingsFrom } from "@/server/config";
import { loadEnvFile } from "@/server/env-file";
import { providerFromUrl, redactUrl } from "@/server/db/provider";
import { closeDatabase, createPrismaClient, type Db } from "@/server/db/client";
import { applyMigrations } from "@/server/db/migrate";
import { isAppError } from "@/server/errors";
import { checkProviders, type ProvidersCheck, type ProvidersCheckSettings } from "@/server/providers/check";
import { createApiKey, listAllKeys, revokeApiKey, rotateApiKey } from "@/server/services/auth/api-keys";
import {
  approveGoLive,
  createAdmin,
  createMerchant,
  listAllMerchants,
  requireMerchant,
  setMerchantStatus,
  setWhitelistEnforcement,
} from "@/server/services/merchants/merchants";
import { addWhitelistEntry, listWhitelist, removeWhitelistEntry } from "@/server/services/merchants/whitelist";
import { adjustWalletByOperator, walletOverview } from "@/server/services/wallet/operator";
import { CLI_OPERATOR } from "@/server/services/accounts/operator-actions";
import { parseAmountToPaise } from "@/lib/money";
import type { Mode } from "@/lib/mode";
import { isBundleEntry } from "@/server/lib/runtime-files";

const USAGE = `Parakh operator CLI

Usage: npm run -s cli -- <command> [options] [--json]

  merchant create   --name N --email E --password P
  merchant list
  merchant go-live  --merchant ID
  merchant suspend  --merchant ID
  merchant reinstate --merchant ID
  whitelist add     --merchant ID --ip ADDR_OR_CIDR [--label TEXT]
  whitelist remove  --merchant ID --ip ADDR_OR_CIDR_OR_ENTRY_ID
  whitelist list    --merchant ID
  whitelist enforce --merchant ID --all on|off     (also enforce on /v1 and /api/kyc)
  key create        --merchant ID [--mode sandbox|live] [--label TEXT]
  key list          --merchant ID
  key rotate        --merchant ID --key KEY_ID [--grace-seconds N]   (default 0: old key stops now)
  key revoke        --merchant ID --key KEY_ID
  wallet show       --merchant ID [--mode sandbox|live]
  wallet credit     --merchant ID --mode sandbox|live --amount RUPEES --reason TEXT
  wallet debit      --merchant ID --mode sandbox|live --amount RUPEES --reason TEXT
  admin create      --email E --password P
  providers check   (one harmless call per live verification family and payments: ok, misconfigured,
                     unreachable or not-configured; exit 1 unless all configured are ok; no database needed)

--json prints exactly one JSON object on stdout; logs and errors go to stderr.
Uses DATABASE_URL (default: the embedded SQLite file in DATA_DIR), read from the environment
or the project's .env like the server; the database opened is printed on stderr.
Changes reach running servers within one second.`;

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

function modeFlag(flags: Flags, required: boolean): Mode | undefined {
  const v = flags.mode;
  if (v === undefined && !required) return undefined;
  if (v !== "sandbox" && v !== "live") throw new UsageError("--mode takes sandbox or live");
  return v;
}

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== "string" || v.length === 0) throw new UsageError(`--${name} is required`);
  return v;
}

interface CommandOutput {
  result: Record<string, unknown>;
  text: string;
  /** 0 unless the command reports a failure in its own output (`providers check`). */
  exitCode?: number;
}

async function merchantStatusCommand(db: Db, f: Flags, status: "ACTIVE" | "SUSPENDED"): Promise<CommandOutput> {
  const r = await setMerchantStatus(db, need(f, "merchant"), status);
  return { result: r, text: `${r.merchantId} is now ${r.status}.` };
}

async function walletAdjustCommand(db: Db, f: Flags, direction: "credit" | "debit"): Promise<CommandOutput> {
  const amountPaise = parseAmountToPaise(need(f, "amount"));
  if (amountPaise === null || amountPaise <= 0) throw new UsageError("--amount takes rupees with at most two decimals, e.g. 500 or 1250.50");
  const r = await adjustWalletByOperator(db, CLI_OPERATOR, {
    merchantId: need(f, "merchant"),
    mode: modeFlag(f, true)!,
    direction,
    amountPaise,
    reason: need(f, "reason"),
  });
  return { result: r, text: `${direction === "credit" ? "Credited" : "Debited"} ₹${r.amount} (${r.mode}); balance now ₹${r.balance}.` };
}

/** Every command by its words: each answers with a JSON result and the text a person reads. */
const COMMANDS: Record<string, (db: Db, f: Flags) => Promise<CommandOutput>> = {
  "merchant create": async (db, f) => {
    const m = await createMerchant(db, { name: need(f, "name"), email: need(f, "email"), password: need(f, "password") });
    const result = {
      merchantId: m.merchantId,
      email: m.email,
      sandbox: { publicKey: m.sandbox.key.publicKey, secretKey: m.sandbox.key.secretKey, signingSecret: m.sandbox.signingSecret },
    };
    return {
      result,
      text: `Merchant ${m.merchantId} (${m.email}) created.\nSandbox public key  ${result.sandbox.publicKey}\nSandbox secret key  ${result.sandbox.secretKey}\nSigning secret      ${result.sandbox.signingSecret}\nThe secrets are shown once.`,
    };
  },
  "merchant list": async (db) => {
    const rows = await listAllMerchants(db);
    return {
      result: { merchants: rows },
      text: rows.map((r) => `${r.id}  ${r.status.padEnd(9)} ${r.liveEnabled ? "live" : "sandbox"}  ${r.email}  ${r.name}`).join("\n") || "No merchants.",
    };
  },
  "merchant go-live": async (db, f) => {
    const r = await approveGoLive(db, need(f, "merchant"));
    return { result: r, text: r.alreadyLive ? `${r.merchantId} was already live.` : `${r.merchantId} is approved for live mode.` };
  },
  "merchant suspend": (db, f) => merchantStatusCommand(db, f, "SUSPENDED"),
  "merchant reinstate": (db, f) => merchantStatusCommand(db, f, "ACTIVE"),
  "whitelist add": async (db, f) => {
    const merchantId = need(f, "merchant");
    await requireMerchant(db, merchantId);
    const e = await addWhitelistEntry(db, merchantId, need(f, "ip"), typeof f.label === "string" ? f.label : "");
    return { result: { id: e.id, merchantId, ip: e.cidr, label: e.label }, text: `Whitelisted ${e.cidr} for ${merchantId} (${e.id}).` };
  },
  "whitelist remove": async (db, f) => {
    const merchantId = need(f, "merchant");
    const removed = await removeWhitelistEntry(db, merchantId, need(f, "ip"));
    return { result: { merchantId, removed }, text: `Removed ${removed} entr${removed === 1 ? "y" : "ies"}.` };
  },
  "whitelist list": async (db, f) => {
    const merchantId = need(f, "merchant");
    const m = await requireMerchant(db, merchantId);
    const rows = await listWhitelist(db, merchantId);
    const entries = rows.map((r) => ({ id: r.id, ip: r.cidr, label: r.label, createdAt: r.createdAt }));
    return {
      result: { merchantId, enforceOnAllApis: m.enforceWhitelistAll, entries },
      text: [
        `Enforced on /v1 and KYC too: ${m.enforceWhitelistAll ? "yes" : "no"} (always on payments)`,
        ...entries.map((e) => `${e.id}  ${e.ip}  ${e.label}`),
      ].join("\n"),
    };
  },
  "whitelist enforce": async (db, f) => {
    const merchantId = need(f, "merchant");
    const v = need(f, "all");
    if (v !== "on" && v !== "off") throw new UsageError("--all takes on or off");
    await setWhitelistEnforcement(db, merchantId, v === "on");
    return { result: { merchantId, enforceOnAllApis: v === "on" }, text: `Whitelist on /v1 and KYC: ${v}.` };
  },
  "key create": async (db, f) => {
    const merchantId = need(f, "merchant");
    await requireMerchant(db, merchantId);
    const mode = (f.mode ?? "sandbox") as string;
    if (mode !== "sandbox" && mode !== "live") throw new UsageError("--mode takes sandbox or live");
    const k = await createApiKey(db, merchantId, mode, typeof f.label === "string" ? f.label : "Default");
    return {
      result: { keyId: k.id, merchantId, mode, publicKey: k.publicKey, secretKey: k.secretKey },
      text: `Key ${k.id} (${mode})\nPublic key  ${k.publicKey}\nSecret key  ${k.secretKey}\nThe secret is shown once.`,
    };
  },
  "key list": async (db, f) => {
    const merchantId = need(f, "merchant");
    await requireMerchant(db, merchantId);
    const rows = await listAllKeys(db, merchantId);
    const keys = rows.map((r) => ({
      keyId: r.id,
      mode: r.mode,
      label: r.label,
      publicKey: r.publicKey,
      secretHint: r.secretHint,
      createdAt: r.createdAt,
      lastUsedAt: r.lastUsedAt,
      expiresAt: r.expiresAt,
      revokedAt: r.revokedAt,
    }));
    return {
      result: { merchantId, keys },
      text:
        keys
          .map(
            (k) =>
              `${k.keyId}  ${k.mode.padEnd(7)} ${k.publicKey}  ${k.revokedAt ? "revoked" : k.expiresAt ? `expires ${k.expiresAt.toISOString()}` : "active"}`,
          )
          .join("\n") || "No keys.",
    };
  },
  "key rotate": async (db, f) => {
    const merchantId = need(f, "merchant");
    const grace = f["grace-seconds"] === undefined ? 0 : Number(f["grace-seconds"]);
    if (!Number.isInteger(grace) || grace < 0 || grace > 30 * 86400) throw new UsageError("--grace-seconds takes a whole number from 0 to 2592000");
    const k = await rotateApiKey(db, merchantId, need(f, "key"), grace);
    return {
      result: { keyId: k.id, replacedKeyId: f.key, merchantId, mode: k.mode, publicKey: k.publicKey, secretKey: k.secretKey, graceSeconds: grace },
      text: `New key ${k.id}\nPublic key  ${k.publicKey}\nSecret key  ${k.secretKey}\nOld key ${f.key} ${grace ? `works for ${grace} more seconds` : "stopped working"}.`,
    };
  },
  "key revoke": async (db, f) => {
    const merchantId = need(f, "merchant");
    await revokeApiKey(db, merchantId, need(f, "key"));
    return { result: { keyId: f.key, merchantId, revoked: true }, text: `Key ${f.key} revoked.` };
  },
  "wallet show": async (db, f) => {
    const merchantId = need(f, "merchant");
    const wallets = await walletOverview(db, merchantId, modeFlag(f, false));
    return {
      result: { merchantId, wallets },
      text:
        wallets
          .map((w) =>
            [
              `${w.mode}: balance ₹${w.balance} (available ₹${w.available}, on hold ₹${w.onHold})`,
              ...w.recentEntries.map((e) => `  ${e.createdAt}  ${e.amount.padStart(12)}  → ${e.balanceAfter.padStart(12)}  ${e.reason}  ${e.reference ?? ""}`),
            ].join("\n"),
          )
          .join("\n") || "No wallets.",
    };
  },
  "wallet credit": (db, f) => walletAdjustCommand(db, f, "credit"),
  "wallet debit": (db, f) => walletAdjustCommand(db, f, "debit"),
  "admin create": async (db, f) => {
    const a = await createAdmin(db, need(f, "email"), need(f, "password"));
    return { result: a, text: `Admin ${a.email} created (${a.adminId}).` };
  },
};

const checkRow = (c: ProvidersCheck["families"][number]) =>
  `  ${c.family.padEnd(8)} ${c.vendor.padEnd(9)} ${c.status.padEnd(14)} ${`${c.ms} ms`.padStart(8)}  ${c.detail}`;

function providersCheckText(check: ProvidersCheck): string {
  const payments = check.families.find((f) => f.family === "payments");
  const verification = check.families.filter((f) => f !== payments);
  const lines =
    verification.length === 0
      ? ["No live verification provider is configured (LIVE_VERIFICATION_PROVIDER=none): live PAN, EPFO and KYC calls answer 503 SOURCE_UNAVAILABLE."]
      : [check.baseUrl ? `Live verification: ${check.provider} at ${check.baseUrl}` : "Live verification:", ...verification.map(checkRow)];
  if (check.payments.provider === "none") {
    lines.push("No live payment provider is configured (LIVE_PAYMENT_PROVIDER=none): live checkout and refunds answer 503 SERVICE_UNAVAILABLE.");
  } else {
    lines.push(`Live payments: ${check.payments.provider} at ${check.payments.baseUrl}`);
  }
  if (payments) lines.push(checkRow(payments));
  for (const warning of check.warnings) lines.push(`Warning: ${warning}`);
  const nothing = check.families.every((f) => f.status === "not-configured");
  lines.push(nothing ? "Nothing to check." : check.ok ? "All families ok." : "Not every family is ok: see docs/going-live.md.");
  return lines.join("\n");
}

/** Commands that need no database: they read only the settings. */
const SETTINGS_COMMANDS: Record<string, (settings: ProvidersCheckSettings) => Promise<CommandOutput>> = {
  "providers check": async (settings) => {
    const check = await checkProviders(settings);
    return { result: { ...check }, text: providersCheckText(check), exitCode: check.ok ? 0 : 1 };
  },
};

async function run(db: Db, group: string, action: string, f: Flags): Promise<CommandOutput> {
  const command = COMMANDS[`${group} ${action}`];
  if (!command) throw new UsageError(`Unknown command: ${[group, action].filter(Boolean).join(" ") || "(none)"}`);
  return command(db, f);
}

/** Where a command's output goes: the terminal when run from the shell, a buffer in tests. */
export interface CliStreams {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Runs one CLI command line (without the program name) and returns its exit code: 0 done, 1 failed,
 * 2 wrong arguments. `openDb` is called once the arguments are known to be right, and only for
 * commands that need the database; `liveSettings` only for those that read the live sources' settings.
 */
export async function runCli(
  argv: string[],
  openDb: (err: CliStreams) => Promise<{ db: Db; close(): Promise<void> }>,
  io: CliStreams,
  liveSettings: () => ProvidersCheckSettings = configuredLiveSettings,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        name: { type: "string" },
        email: { type: "string" },
        password: { type: "string" },
        merchant: { type: "string" },
        ip: { type: "string" },
        label: { type: "string" },
        all: { type: "string" },
        mode: { type: "string" },
        key: { type: "string" },
        "grace-seconds": { type: "string" },
        amount: { type: "string" },
        reason: { type: "string" },
      },
    });
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const [group = "", action = "", ...extra] = positionals;
  const json = values.json === true;
  if (extra.length) {
    io.stderr(`Unexpected argument: ${extra.join(" ")}\n\n${USAGE}\n`);
    return 2;
  }
  const name = `${group} ${action}`;
  let execute: () => Promise<CommandOutput>;
  let close: () => Promise<void> = async () => undefined;
  if (Object.hasOwn(SETTINGS_COMMANDS, name)) {
    const settings = liveSettings();
    execute = () => SETTINGS_COMMANDS[name]!(settings);
  } else {
    const database = await openDb(io);
    close = () => database.close();
    execute = () => run(database.db, group, action, values as Flags);
  }
  try {
    const { result, text, exitCode = 0 } = await execute();
    io.stdout(json ? `${JSON.stringify(result)}\n` : `${text}\n`);
    return exitCode;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    const code = isAppError(err) ? err.code : "INTERNAL_ERROR";
    const message = isAppError(err) ? err.message : "Unexpected failure; see the log above.";
    if (!isAppError(err)) io.stderr(`${(err as Error)?.stack ?? String(err)}\n`);
    if (json) io.stdout(`${JSON.stringify({ error: { code, message } })}\n`);
    else io.stderr(`Error (${code}): ${message}\n`);
    return 1;
  } finally {
    await close();
  }
}

/** The shell's settings, read from the environment and .env like the server's. */
function configuredLiveSettings(): ProvidersCheckSettings {
  loadEnvFile();
  // Only the vendors' settings: a check writes nothing, not even the data folder's secrets.
  return liveSettingsFrom(process.env);
}

/** The shell's CLI: settings from the environment and .env, the database they name, migrated. */
async function openConfiguredDatabase(io: CliStreams) {
  const envFile = loadEnvFile();
  const config = getConfig();
  // Which database this run changes, so a CLI pointed elsewhere than the server is noticed at once.
  io.stderr(`Database: ${providerFromUrl(config.databaseUrl)} ${redactUrl(config.databaseUrl)}${envFile ? ` (settings from ${envFile})` : ""}\n`);
  await applyMigrations(config.databaseUrl);
  const db = createPrismaClient(config.databaseUrl);
  return { db, close: () => closeDatabase(db) };
}

/** The CLI as a program: this process's arguments, the terminal's streams, the configured database; exits with the command's code. */
export function main(): void {
  // The CLI may create the database: private to this user, like the server's files.
  process.umask(0o077);
  const io: CliStreams = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
  runCli(process.argv.slice(2), openConfiguredDatabase, io).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

// Started as a program: from this source through tsx, or as the built dist/cli.mjs (an ES module, without `module`).
if (isBundleEntry("cli") || (typeof module !== "undefined" && require.main === module)) main();
