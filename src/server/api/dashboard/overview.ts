import { router } from "@/server/trpc/init";

export const overviewRouter = router({});
