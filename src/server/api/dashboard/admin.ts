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

  actions: adminSessionProcedure.input(actionsInput).query(({ ctx, input }) => listOperatorActions(ctx.services.db, input)),

  /** Email the service sent or, without SMTP, kept in the outbox (with its body) for operators to pass on. */
  emails: adminSessionProcedure.input(emailsInput).query(({ ctx, input }) => listEmails(ctx.services.db, input)),
});
