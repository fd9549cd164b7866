import { ADMIN_PAGE_SIZE, type MerchantFilter } from "@/lib/schemas/admin";
import { formatPaise } from "@/lib/money";
import type { Db, Prisma } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { MODES, type Mode } from "@/lib/mode";
import { isKeyUsable } from "@/server/services/auth/api-keys";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";
import { recordOperatorAction, type OperatorActionKind } from "@/server/services/accounts/operator-actions";
import { activeLocks } from "@/server/services/accounts/throttle";
import { approveGoLive } from "@/server/services/merchants/merchants";
import { isoOrNull } from "@/server/lib/dates";

// What the operator area (/admin) reads and does. Dates leave as ISO strings: the dashboard's
// tRPC link has no transformer, so that is what the browser receives anyway.

export interface Operator {
  id: string;
  email: string;
}

export type GoLiveState = "sandbox" | "requested" | "live";

export interface MerchantUsage {
  last7Days: number;
  sandbox: number;
  live: number;
}

const USAGE_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const RECENT_CALLS = 20;

/** Asked for go-live and not yet approved: these wait on an operator and lead the list. */
const PENDING_GO_LIVE: Prisma.MerchantWhereInput = { liveEnabled: false, goLiveRequestedAt: { not: null } };
const NOT_PENDING_GO_LIVE: Prisma.MerchantWhereInput = { OR: [{ liveEnabled: true }, { goLiveRequestedAt: null }] };

const FILTERS: Record<MerchantFilter, Prisma.MerchantWhereInput> = {
  all: {},
  go_live_requested: PENDING_GO_LIVE,
  live: { liveEnabled: true },
  suspended: { status: "SUSPENDED" },
};

function goLiveState(m: { liveEnabled: boolean; goLiveRequestedAt: Date | null }): GoLiveState {
  if (m.liveEnabled) return "live";
  return m.goLiveRequestedAt ? "requested" : "sandbox";
}

function searchWhere(q: string | undefined): Prisma.MerchantWhereInput {
  if (!q) return {};
  // Emails are stored lower-case; names match as typed (SQLite's LIKE ignores ASCII case anyway).
  return { OR: [{ id: { contains: q } }, { email: { contains: q.toLowerCase() } }, { name: { contains: q } }] };
}

/**
 * API calls per merchant from the audit log: two grouped queries for the whole page (totals per
 * mode, and the last 7 days), never one query per merchant.
 */
export async function usageByMerchant(db: Db, merchantIds: string[], now = new Date()): Promise<Map<string, MerchantUsage>> {
  const usage = new Map<string, MerchantUsage>(merchantIds.map((id) => [id, { last7Days: 0, sandbox: 0, live: 0 }]));
  if (merchantIds.length === 0) return usage;
  const since = new Date(now.getTime() - USAGE_WINDOW_MS);
  const [byMode, recent] = await Promise.all([
    db.auditLog.groupBy({ by: ["merchantId", "mode"], where: { merchantId: { in: merchantIds } }, _count: { _all: true } }),
    db.auditLog.groupBy({ by: ["merchantId"], where: { merchantId: { in: merchantIds }, createdAt: { gte: since } }, _count: { _all: true } }),
  ]);
  for (const row of byMode) {
    const u = row.merchantId ? usage.get(row.merchantId) : undefined;
    if (u && (row.mode === "sandbox" || row.mode === "live")) u[row.mode] += row._count._all;
  }
  for (const row of recent) {
    const u = row.merchantId ? usage.get(row.merchantId) : undefined;
    if (u) u.last7Days = row._count._all;
  }
  return usage;
}

const LIST_SELECT = {
  id: true,
  name: true,
  email: true,
  status: true,
  liveEnabled: true,
  goLiveRequestedAt: true,
  goLiveApprovedAt: true,
  createdAt: true,
} as const satisfies Prisma.MerchantSelect;

/**
 * One page of merchants: pending go-live requests first (oldest request first), then everyone else,
 * newest first. Offset paging, because the list is two ordered segments glued together.
 */
export async function listMerchantsForOperator(db: Db, input: { q?: string; filter: MerchantFilter; cursor?: number }, now = new Date()) {
  const base: Prisma.MerchantWhereInput = { AND: [searchWhere(input.q), FILTERS[input.filter]] };
  const pendingWhere: Prisma.MerchantWhereInput = { AND: [base, PENDING_GO_LIVE] };
  const restWhere: Prisma.MerchantWhereInput = { AND: [base, NOT_PENDING_GO_LIVE] };
  const offset = input.cursor ?? 0;

  const [pendingTotal, restTotal, pendingGoLiveAll] = await Promise.all([
    db.merchant.count({ where: pendingWhere }),
    db.merchant.count({ where: restWhere }),
    db.merchant.count({ where: PENDING_GO_LIVE }),
  ]);
  const pending =
    offset < pendingTotal
      ? await db.merchant.findMany({
          where: pendingWhere,
          orderBy: [{ goLiveRequestedAt: "asc" }, { id: "asc" }],
          skip: offset,
          take: ADMIN_PAGE_SIZE,
          select: LIST_SELECT,
        })
      : [];
  const restTake = ADMIN_PAGE_SIZE - pending.length;
  const rest =
    restTake > 0
      ? await db.merchant.findMany({
          where: restWhere,
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          skip: Math.max(0, offset - pendingTotal),
          take: restTake,
          select: LIST_SELECT,
        })
      : [];
  const rows = [...pending, ...rest];
  const usage = await usageByMerchant(
    db,
    rows.map((m) => m.id),
    now,
  );
  const total = pendingTotal + restTotal;
  return {
    items: rows.map((m) => ({
      id: m.id,
      name: m.name,
      email: m.email,
      status: m.status as "ACTIVE" | "SUSPENDED",
      goLive: { state: goLiveState(m), requestedAt: isoOrNull(m.goLiveRequestedAt), approvedAt: isoOrNull(m.goLiveApprovedAt) },
      usage: usage.get(m.id)!,
      createdAt: m.createdAt.toISOString(),
    })),
    total,
    offset,
    pageSize: ADMIN_PAGE_SIZE,
    nextCursor: offset + ADMIN_PAGE_SIZE < total ? offset + ADMIN_PAGE_SIZE : null,
    /** Across all merchants, whatever the search or filter. */
    pendingGoLive: pendingGoLiveAll,
  };
}

/**
 * The live vendor that answered each of these calls (C6), from the verification or KYC transaction
 * it recorded. Read within the calls' time span, so the (merchantId, mode, createdAt) indexes serve
 * it; the records are written a moment before their audit record, hence the minute's margin.
 */
async function answeringVendors(
  db: Db,
  merchantId: string,
  calls: { requestId: string; mode: string | null; createdAt: Date }[],
): Promise<Map<string, string>> {
  const live = calls.filter((c) => c.mode === "live");
  if (live.length === 0) return new Map();
  const times = live.map((c) => c.createdAt.getTime());
  const where = {
    merchantId,
    mode: "live",
    requestId: { in: live.map((c) => c.requestId) },
    vendor: { not: null },
    createdAt: { gte: new Date(Math.min(...times) - 60_000), lte: new Date(Math.max(...times) + 60_000) },
  };
  const select = { requestId: true, vendor: true } as const;
  const [verifications, kyc] = await Promise.all([db.verification.findMany({ where, select }), db.kycTransaction.findMany({ where, select })]);
  return new Map([...verifications, ...kyc].map((r) => [r.requestId, r.vendor!]));
}

/** Everything an operator needs to judge one merchant. */
export async function merchantForOperator(db: Db, merchantId: string, now = new Date()) {
  const m = await db.merchant.findUnique({
    where: { id: merchantId },
    select: {
      ...LIST_SELECT,
      displayName: true,
      supportEmail: true,
      totpEnabled: true,
      enforceWhitelistAll: true,
      updatedAt: true,
      apiKeys: { select: { mode: true, revokedAt: true, expiresAt: true } },
      wallets: { select: { mode: true, balancePaise: true } },
      kycFeeAadhaarPaise: true,
      kycFeePanPaise: true,
      kycFeeBankPaise: true,
      _count: { select: { whitelist: true } },
    },
  });
  if (!m) throw new AppError("NOT_FOUND", `No merchant ${merchantId}.`);

  const callSelect = {
    id: true,
    requestId: true,
    mode: true,
    method: true,
    path: true,
    status: true,
    latencyMs: true,
    errorCode: true,
    createdAt: true,
  } as const;
  // One query per mode follows the (merchantId, mode, createdAt) index instead of sorting every row.
  const [usage, locks, suspension, ...callsByMode] = await Promise.all([
    usageByMerchant(db, [merchantId], now),
    activeLocks(db, "merchant", m.email, now),
    m.status === "SUSPENDED"
      ? db.operatorAction.findFirst({ where: { merchantId, action: "SUSPEND" }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] })
      : Promise.resolve(null),
    ...MODES.map((mode) => db.auditLog.findMany({ where: { merchantId, mode }, orderBy: { createdAt: "desc" }, take: RECENT_CALLS, select: callSelect })),
  ]);
  const recent = callsByMode
    .flat()
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .slice(0, RECENT_CALLS);
  const vendors = await answeringVendors(db, merchantId, recent);
  const recentCalls = recent.map((c) => ({ ...c, vendor: vendors.get(c.requestId) ?? null, createdAt: c.createdAt.toISOString() }));

  const keys = Object.fromEntries(
    MODES.map((mode) => {
      const ofMode = m.apiKeys.filter((k) => k.mode === mode);
      return [mode, { total: ofMode.length, active: ofMode.filter((k) => isKeyUsable(k, now.getTime())).length }];
    }),
  ) as Record<Mode, { total: number; active: number }>;

  return {
    id: m.id,
    name: m.name,
    email: m.email,
    displayName: m.displayName,
    supportEmail: m.supportEmail,
    status: m.status as "ACTIVE" | "SUSPENDED",
    suspension: suspension ? { reason: suspension.details, at: suspension.createdAt.toISOString(), by: suspension.adminEmail } : null,
    totpEnabled: m.totpEnabled,
    // Sign-in locks are per client address; operators see how many and the latest end.
    lockedUntil: isoOrNull(locks.until),
    lockedClients: locks.clients,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
    goLive: { state: goLiveState(m), requestedAt: isoOrNull(m.goLiveRequestedAt), approvedAt: isoOrNull(m.goLiveApprovedAt) },
    keys,
    whitelist: { entries: m._count.whitelist, enforceAll: m.enforceWhitelistAll },
    wallets: MODES.map((mode) => {
      const w = m.wallets.find((x) => x.mode === mode);
      return { mode, exists: Boolean(w), balancePaise: w?.balancePaise ?? 0, balance: formatPaise(w?.balancePaise ?? 0) };
    }),
    kycFees: { AADHAAR_OTP: m.kycFeeAadhaarPaise, PAN: m.kycFeePanPaise, BANK: m.kycFeeBankPaise },
    usage: usage.get(merchantId)!,
    recentCalls,
  };
}

/** Operator actions, newest first, cursor-paged by id; with the merchant's name where it still exists. */
export async function listOperatorActions(db: Db, input: { merchantId?: string; cursor?: string | null }) {
  const rows = await db.operatorAction.findMany({
    where: input.merchantId ? { merchantId: input.merchantId } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: ADMIN_PAGE_SIZE + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, ADMIN_PAGE_SIZE);
  const ids = [...new Set(page.map((r) => r.merchantId).filter((id): id is string => Boolean(id)))];
  const merchants = ids.length ? await db.merchant.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  const names = new Map(merchants.map((x) => [x.id, x.name]));
  return {
    items: page.map((r) => ({
      id: r.id,
      adminEmail: r.adminEmail,
      action: r.action as OperatorActionKind,
      merchantId: r.merchantId,
      merchantName: r.merchantId ? (names.get(r.merchantId) ?? null) : null,
      details: r.details,
      createdAt: r.createdAt.toISOString(),
    })),
    nextCursor: rows.length > ADMIN_PAGE_SIZE ? page[page.length - 1]!.id : null,
  };
}

async function requireMerchantRow(db: Db, merchantId: string) {
  const m = await db.merchant.findUnique({
    where: { id: merchantId },
    select: { id: true, name: true, status: true, liveEnabled: true, goLiveRequestedAt: true },
  });
  if (!m) throw new AppError("NOT_FOUND", `No merchant ${merchantId}.`);
  return m;
}

export async function approveGoLiveByOperator(db: Db, operator: Operator, merchantId: string) {
  const before = await requireMerchantRow(db, merchantId);
  if (before.liveEnabled) throw new AppError("CONFLICT", `${before.name} is already live.`);
  const result = await approveGoLive(db, merchantId);
  // A second operator approving at the same moment sees this instead of a duplicate record.
  if (result.alreadyLive) throw new AppError("CONFLICT", `${before.name} is already live.`);
  const details = before.goLiveRequestedAt ? `Requested ${before.goLiveRequestedAt.toISOString()}` : "Approved without a request";
  await recordOperatorAction(db, operator, "APPROVE_GO_LIVE", merchantId, details);
  return { merchantId, liveEnabled: true };
}

/**
 * ACTIVE ⇄ SUSPENDED as a conditional update on the current status, so two operators acting at
 * once cannot both win (and both be recorded). The auth epoch moves so the API sees it within 1 s.
 */
async function changeStatus(db: Db, operator: Operator, merchantId: string, to: "ACTIVE" | "SUSPENDED", action: OperatorActionKind, details?: string) {
  const from = to === "SUSPENDED" ? "ACTIVE" : "SUSPENDED";
  const changed = await db.merchant.updateMany({ where: { id: merchantId, status: from }, data: { status: to } });
  if (changed.count === 0) {
    const m = await requireMerchantRow(db, merchantId);
    throw new AppError("CONFLICT", to === "SUSPENDED" ? `${m.name} is already suspended.` : `${m.name} is not suspended.`);
  }
  await bumpAuthEpoch(db);
  await recordOperatorAction(db, operator, action, merchantId, details);
  return { merchantId, status: to };
}

export function suspendMerchantByOperator(db: Db, operator: Operator, merchantId: string, reason: string) {
  return changeStatus(db, operator, merchantId, "SUSPENDED", "SUSPEND", reason);
}

export function reinstateMerchantByOperator(db: Db, operator: Operator, merchantId: string) {
  return changeStatus(db, operator, merchantId, "ACTIVE", "REINSTATE");
}
