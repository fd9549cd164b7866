import { addTestFundsInput, ledgerListInput, lowBalanceThresholdInput } from "@/lib/schemas/wallet";
import { addTestFunds, listLedger, setLowBalanceThreshold, walletSummary } from "@/server/services/wallet/ledger";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const walletRouter = router({
  /** The mode's balance, what is on hold, the low-balance threshold and the merchant's KYC fees. */
  summary: modeProcedure.query(({ ctx }) => walletSummary(ctx.services.db, ctx.merchantId, ctx.mode)),

  /** The mode's ledger, newest first; by credits, debits or one reason, and IST dates. */
  ledger: modeProcedure.input(ledgerListInput).query(({ ctx, input }) => listLedger(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** Sandbox only (FORBIDDEN in live): bounded test money, ledger reason TEST_FUNDS. */
  addTestFunds: modeProcedure.input(addTestFundsInput).mutation(({ ctx, input }) => addTestFunds(ctx.services.db, ctx.merchantId, ctx.mode, input.amount)),

  /** Null (or an empty field) turns the wallet.low_balance alert off. */
  setLowBalanceThreshold: modeProcedure
    .input(lowBalanceThresholdInput)
    .mutation(({ ctx, input }) => setLowBalanceThreshold(ctx.services.db, ctx.merchantId, ctx.mode, input.threshold)),
});
