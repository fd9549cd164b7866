import { router } from "@/server/trpc/init";

export const adminRouter = router({});
