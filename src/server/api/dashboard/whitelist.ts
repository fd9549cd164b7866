import { router } from "@/server/trpc/init";

export const whitelistRouter = router({});
