import { addWhitelistInput, removeWhitelistInput, setEnforcementInput, WHITELIST_MAX_ENTRIES } from "@/lib/schemas/whitelist";
import { AppError } from "@/server/errors";
import { IpMatcher, normalizeIp } from "@/server/lib/ip";
import { setWhitelistEnforcement } from "@/server/services/merchants/merchants";
import { addNewWhitelistEntry, listWhitelist, removeWhitelistEntry } from "@/server/services/merchants/whitelist";
import { merchantSessionProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

const entryOut = (e: { id: string; cidr: string; label: string; createdAt: Date }) => ({
  id: e.id,
  cidr: e.cidr,
  label: e.label,
  createdAt: e.createdAt.toISOString(),
});

/** One list per merchant (not per mode): payments always check it; /v1 and KYC when the merchant opts in. */
export const whitelistRouter = router({
  list: merchantSessionProcedure.query(async ({ ctx }) => {
    const db = ctx.services.db;
    const [entries, merchant] = await Promise.all([
      listWhitelist(db, ctx.merchantId),
      db.merchant.findUnique({ where: { id: ctx.merchantId }, select: { enforceWhitelistAll: true } }),
    ]);
    if (!merchant) throw new AppError("NOT_FOUND", "This account no longer exists.");
    const currentIp = ctx.clientIp ? normalizeIp(ctx.clientIp) : null;
    return {
      entries: entries.map(entryOut).reverse(),
      /** The address this dashboard request came from, as our server resolves it. */
      currentIp,
      currentIpListed: currentIp ? new IpMatcher(entries.map((e) => e.cidr)).has(currentIp) : false,
      enforceOnAllApis: merchant.enforceWhitelistAll,
      maxEntries: WHITELIST_MAX_ENTRIES,
    };
  }),

  add: merchantSessionProcedure.input(addWhitelistInput).mutation(async ({ ctx, input }) => {
    const entry = await addNewWhitelistEntry(ctx.services.db, ctx.merchantId, input.ip, input.label, WHITELIST_MAX_ENTRIES);
    return entryOut(entry);
  }),

  remove: merchantSessionProcedure.input(removeWhitelistInput).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    // By id only: the service also accepts an address, which this form never sends.
    const entry = await db.ipWhitelistEntry.findFirst({ where: { id: input.id, merchantId: ctx.merchantId }, select: { id: true, cidr: true } });
    if (!entry) throw new AppError("NOT_FOUND", "No such whitelist entry.");
    await removeWhitelistEntry(db, ctx.merchantId, entry.id);
    return { id: entry.id, cidr: entry.cidr };
  }),

  setEnforcement: merchantSessionProcedure.input(setEnforcementInput).mutation(async ({ ctx, input }) => {
    await setWhitelistEnforcement(ctx.services.db, ctx.merchantId, input.enforceOnAllApis);
    return { enforceOnAllApis: input.enforceOnAllApis };
  }),
});
