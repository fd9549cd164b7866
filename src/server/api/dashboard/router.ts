import { accountRouter } from "@/server/api/dashboard/account";
import { adminRouter } from "@/server/api/dashboard/admin";
import { batchesRouter } from "@/server/api/dashboard/batches";
import { checkoutRouter } from "@/server/api/dashboard/checkout";
import { keysRouter } from "@/server/api/dashboard/keys";
import { kycRouter } from "@/server/api/dashboard/kyc";
import { logsRouter } from "@/server/api/dashboard/logs";
import { overviewRouter } from "@/server/api/dashboard/overview";
import { paymentsRouter } from "@/server/api/dashboard/payments";
import { refundsRouter } from "@/server/api/dashboard/refunds";
import { securityRouter } from "@/server/api/dashboard/security";
import { verificationsRouter } from "@/server/api/dashboard/verifications";
import { walletRouter } from "@/server/api/dashboard/wallet";
import { webhooksRouter } from "@/server/api/dashboard/webhooks";
import { whitelistRouter } from "@/server/api/dashboard/whitelist";
import { router } from "@/server/trpc/init";

/** Everything the dashboard, /admin and the hosted checkout page call, at /api/trpc. */
export const dashboardRouter = router({
  account: accountRouter,
  security: securityRouter,
  keys: keysRouter,
  whitelist: whitelistRouter,
  logs: logsRouter,
  verifications: verificationsRouter,
  batches: batchesRouter,
  overview: overviewRouter,
  admin: adminRouter,
  checkout: checkoutRouter,
  payments: paymentsRouter,
  refunds: refundsRouter,
  webhooks: webhooksRouter,
  wallet: walletRouter,
  kyc: kycRouter,
});

export type DashboardRouter = typeof dashboardRouter;
