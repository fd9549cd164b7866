import { t } from "@/server/trpc/init";

/**
 * trpc-to-openapi reads path parameters from the raw URL, still percent-encoded; the door decoded
 * them once when it matched the route, and those values are the ones validated and used.
 */
export const decodedPathParams = t.middleware(async (opts) => {
  const params = opts.ctx.rest?.pathParams;
  if (!params || Object.keys(params).length === 0) return opts.next();
  const getRawInput = opts.getRawInput;
  return opts.next({
    getRawInput: async () => {
      const raw = await getRawInput();
      return raw !== null && typeof raw === "object" && !Array.isArray(raw) ? { ...raw, ...params } : raw;
    },
  });
});
