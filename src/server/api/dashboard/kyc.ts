import { kycGetInput, kycListInput } from "@/lib/schemas/kyc-transactions";
import { getKycTransaction, listKycTransactions, readKycResult } from "@/server/services/kyc/transactions";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const kycRouter = router({
  /** Charged KYC calls in the mode, newest first, masked: never the photo, address or full numbers. */
  list: modeProcedure.input(kycListInput).query(({ ctx, input }) => listKycTransactions(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** NOT_FOUND for another merchant's or mode's transaction, as for an unknown id. */
  get: modeProcedure
    .input(kycGetInput)
    .query(({ ctx, input }) => getKycTransaction(ctx.services.db, ctx.merchantId, ctx.mode, input.id, ctx.services.config.kycResultRetentionDays)),

  /** The stored full answer (personal data): asked for only by "Show full result". */
  result: modeProcedure
    .input(kycGetInput)
    .query(({ ctx, input }) =>
      readKycResult(ctx.services.db, ctx.services.config.secrets.encryptionKey, ctx.merchantId, ctx.mode, input.id, ctx.services.config.kycResultRetentionDays),
    ),
});
