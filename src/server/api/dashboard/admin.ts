import { actionsInput, emailsInput, merchantInput, merchantsInput, suspendInput } from "@/lib/schemas/admin";
import {
  approveGoLiveByOperator,
  listMerchantsForOperator,
  listOperatorActions,
  merchantForOperator,
  reinstateMerchantByOperator,
  suspendMerchantByOperator,
} from "@/server/services/accounts/admin";
import { listEmails } from "@/server/services/email/email";
import { kycFeesInput, walletAdjustInput } from "@/lib/schemas/wallet";
import { automaticRefundsNeedingAttention } from "@/server/services/operations/automatic-refunds";
import { upstreamHealth } from "@/server/services/operations/upstream-health";
import { allUpstreamStats } from "@/server/providers/upstream/peer";
import { adjustWalletByOperator, setKycFees } from "@/server/services/wallet/operator";
import { adminSessionProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

/** The operator area (/admin): operators only; every change is recorded as an operator action. */
export const adminRouter = router({
  merchants: adminSessionProcedure.input(merchantsInput).query(({ ctx, input }) => listMerchantsForOperator(ctx.services.db, input)),

  merchant: adminSessionProcedure.input(merchantInput).query(({ ctx, input }) => merchantForOperator(ctx.services.db, input.merchantId)),

  approveGoLive: adminSessionProcedure.input(merchantInput).mutation(({ ctx, input }) => approveGoLiveByOperator(ctx.services.db, ctx.admin, input.merchantId)),

  suspend: adminSessionProcedure
    .input(suspendInput)
    .mutation(({ ctx, input }) => suspendMerchantByOperator(ctx.services.db, ctx.admin, input.merchantId, input.reason)),

  reinstate: adminSessionProcedure.input(merchantInput).mutation(({ ctx, input }) => reinstateMerchantByOperator(ctx.services.db, ctx.admin, input.merchantId)),

  /** A merchant's fee per KYC call, typed in rupees; recorded as KYC_FEES. */
  setKycFees: adminSessionProcedure
    .input(kycFeesInput)
    .mutation(({ ctx, input }) =>
      setKycFees(ctx.services.db, ctx.admin, input.merchantId, { AADHAAR_OTP: input.aadhaarOtp, PAN: input.pan, BANK: input.bank }),
    ),

  /** Credits or debits a merchant's wallet with a reason; recorded as WALLET_CREDIT or WALLET_DEBIT. */
  adjustWallet: adminSessionProcedure.input(walletAdjustInput).mutation(({ ctx, input }) =>
    adjustWalletByOperator(ctx.services.db, ctx.admin, {
      merchantId: input.merchantId,
      mode: input.mode,
      direction: input.direction,
      amountPaise: input.amount,
      reason: input.reason,
    }),
  ),

  actions: adminSessionProcedure.input(actionsInput).query(({ ctx, input }) => listOperatorActions(ctx.services.db, input)),

  /** Email the service sent or, without SMTP, kept in the outbox (with its body) for operators to pass on. */
  emails: adminSessionProcedure.input(emailsInput).query(({ ctx, input }) => listEmails(ctx.services.db, input)),

  /** Each upstream vendor family as this server instance sees it (its API and its pages): breaker, calls and failures in 5 minutes, p95, last error. */
  upstream: adminSessionProcedure.query(async ({ ctx }) => upstreamHealth(ctx.services.config, await allUpstreamStats())),

  /** Automatic refunds of late attempts that failed, or that the processor has not answered for an hour. */
  automaticRefunds: adminSessionProcedure.query(({ ctx }) => automaticRefundsNeedingAttention(ctx.services.db)),
});
