import { router } from "@/server/trpc/init";

export const keysRouter = router({});
