import { AppError } from "@/server/errors";
import { t } from "@/server/trpc/init";
import { errorEnvelopeFor } from "@/server/trpc/rest-errors";

/**
 * The outermost REST middleware: any failure below it (auth, validation, services) becomes the
 * contract's error envelope with its status, returned as data so trpc-to-openapi sends it as is.
 */
export const restEnvelope = t.middleware(async (opts) => {
  const rest = opts.ctx.rest;
  if (!rest) throw new AppError("INTERNAL_ERROR", "REST procedure called outside the REST door.");
  const result = await opts.next({ ctx: { rest } });
  if (result.ok) {
    if (!rest.replayed && !rest.errorCode) rest.status = opts.meta?.rest?.successStatus ?? 200;
    return result;
  }
  const raw = await opts.getRawInput().catch(() => undefined);
  const body = errorEnvelopeFor(result.error, rest, raw, opts.meta?.rest);
  return { ...result, ok: true as const, data: body, ctx: opts.ctx } as unknown as typeof result;
});
