import { addWhitelistInput, removeWhitelistInput, setEnforcementInput, WHITELIST_MAX_ENTRIES } from "@/lib/schemas/whitelist";
import { IpMatcher, normalizeIp } from "@/server/lib/ip";
import { setWhitelistEnforcement } from "@/server/services/merchants/merchants";
import { addNewWhitelistEntry, removeWhitelistEntryById, whitelistOverview } from "@/server/services/merchants/whitelist";
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
    const { entries, enforceOnAllApis } = await whitelistOverview(ctx.services.db, ctx.merchantId);
    const currentIp = ctx.clientIp ? normalizeIp(ctx.clientIp) : null;
    return {
      entries: entries.map(entryOut).reverse(),
      /** The address this dashboard request came from, as our server resolves it. */
      currentIp,
      currentIpListed: currentIp ? new IpMatcher(entries.map((e) => e.cidr)).has(currentIp) : false,
      enforceOnAllApis,
      maxEntries: WHITELIST_MAX_ENTRIES,
    };
  }),

  add: merchantSessionProcedure.input(addWhitelistInput).mutation(async ({ ctx, input }) => {
    const entry = await addNewWhitelistEntry(ctx.services.db, ctx.merchantId, input.ip, input.label, WHITELIST_MAX_ENTRIES, { confirmWide: input.confirmWide });
    return entryOut(entry);
  }),

  remove: merchantSessionProcedure
    .input(removeWhitelistInput)
    .mutation(({ ctx, input }) => removeWhitelistEntryById(ctx.services.db, ctx.merchantId, input.id)),

  setEnforcement: merchantSessionProcedure.input(setEnforcementInput).mutation(async ({ ctx, input }) => {
    await setWhitelistEnforcement(ctx.services.db, ctx.merchantId, input.enforceOnAllApis);
    return { enforceOnAllApis: input.enforceOnAllApis };
  }),
});
