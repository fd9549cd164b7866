import { abandonIdempotent, beginIdempotent, completeIdempotent, shouldStoreResponse } from "@/server/services/idempotency/idempotency";
import { t } from "@/server/trpc/init";
import { errorEnvelopeFor } from "@/server/trpc/rest-errors";

/** `Idempotency-Key` on REST POSTs. Runs after auth: keys are scoped to merchant and mode. */
export const idempotency = t.middleware(async (opts) => {
  const { ctx } = opts;
  const rest = ctx.rest;
  const raw = ctx.req?.headers["idempotency-key"];
  if (!rest?.auth || rest.method !== "POST" || raw === undefined) return opts.next();
  const key = Array.isArray(raw) ? raw.join(",") : raw;
  const db = ctx.services.db;
  const encryptionKey = opts.meta?.rest?.sensitive ? ctx.services.config.secrets.encryptionKey : undefined;
  const start = await beginIdempotent(db, {
    merchantId: rest.auth.merchantId,
    mode: rest.auth.mode,
    key,
    method: rest.method,
    path: rest.path,
    body: rest.rawBody,
    encryptionKey,
  });
  if (start.kind === "replay") {
    rest.replayed = true;
    rest.status = start.status;
    rest.headers["Idempotent-Replayed"] = "true";
    return { ok: true as const, data: JSON.parse(start.body), ctx, marker: undefined } as unknown as Awaited<ReturnType<typeof opts.next>>;
  }
  const result = await opts.next();
  let data: unknown;
  if (result.ok) {
    rest.status = opts.meta?.rest?.successStatus ?? 200;
    data = result.data;
  } else {
    const input = await opts.getRawInput().catch(() => undefined);
    data = errorEnvelopeFor(result.error, rest, input, opts.meta?.rest);
  }
  if (shouldStoreResponse(rest.status, rest.errorCode)) await completeIdempotent(db, start.recordId, rest.status, data, encryptionKey);
  else await abandonIdempotent(db, start.recordId);
  return { ...result, ok: true as const, data, ctx } as unknown as typeof result;
});
