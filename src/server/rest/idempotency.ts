import type { RestMeta } from "@/server/rest/meta";
import type { Answer, RequestRecord } from "@/server/rest/request-record";
import type { AppServices } from "@/server/services";
import { abandonIdempotent, beginIdempotent, completeIdempotent, shouldStoreResponse } from "@/server/services/idempotency/idempotency";

/**
 * `Idempotency-Key` on REST POSTs, scoped to the key's merchant and mode: the first request runs and
 * its answer is stored (unless it is one a retry must run again); the same key and body replay it
 * with `Idempotent-Replayed: true`. A different body, or a first request still running, is refused
 * by `beginIdempotent` with its code.
 */
export async function withIdempotency(
  services: AppServices,
  record: RequestRecord,
  rest: RestMeta,
  header: string | string[] | undefined,
  run: () => Promise<Answer>,
): Promise<Answer> {
  if (record.method !== "POST" || header === undefined || !record.auth) return run();
  const encryptionKey = rest.sensitive ? services.config.secrets.encryptionKey : undefined;
  const start = await beginIdempotent(services.db, {
    merchantId: record.auth.merchantId,
    mode: record.auth.mode,
    key: Array.isArray(header) ? header.join(",") : header,
    method: record.method,
    path: record.path,
    body: record.rawBody,
    encryptionKey,
  });
  if (start.kind === "replay") return { status: start.status, headers: { "Idempotent-Replayed": "true" }, body: JSON.parse(start.body), code: null };
  let answer: Answer | undefined;
  try {
    answer = await run();
    return answer;
  } finally {
    if (answer && shouldStoreResponse(answer.status, answer.code))
      await completeIdempotent(services.db, start.recordId, answer.status, answer.body, encryptionKey);
    else await abandonIdempotent(services.db, start.recordId);
  }
}
