import { router } from "@/server/trpc/init";

export const verificationsRouter = router({});
