import { router } from "@/server/trpc/init";

export const logsRouter = router({});
