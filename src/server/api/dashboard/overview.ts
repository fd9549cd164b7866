import { overviewStats } from "@/server/services/audit/overview";
import { ONBOARDING_STEPS, onboardingProgress } from "@/server/services/merchants/onboarding";
import { merchantSessionProcedure, modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const overviewRouter = router({
  stats: modeProcedure.query(({ ctx }) => overviewStats(ctx.services.db, ctx.merchantId, ctx.mode)),

  /** The first-day checklist: one account, both modes, each step from stored activity. */
  onboarding: merchantSessionProcedure.query(async ({ ctx }) => {
    const { done, lastRefused } = await onboardingProgress(ctx.services.db, ctx.merchantId);
    return {
      merchantId: ctx.merchantId,
      steps: ONBOARDING_STEPS.map((id) => ({ id, done: done[id] })),
      lastRefused: lastRefused && { ...lastRefused, at: lastRefused.at.toISOString() },
    };
  }),
});
