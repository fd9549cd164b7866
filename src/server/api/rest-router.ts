import { verifyEpfoProcedure } from "@/server/api/employment/verify-epfo";
import { verifyPanProcedure } from "@/server/api/identity/verify-pan";
import { router } from "@/server/trpc/init";

/** Every public REST operation (`/v1`, `/api`), served by the REST door and described in /api/openapi.json. */
export const restRouter = router({
  identity: router({ verifyPan: verifyPanProcedure }),
  employment: router({ verifyEpfo: verifyEpfoProcedure }),
});

export type RestRouter = typeof restRouter;
