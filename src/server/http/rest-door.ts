import type { IncomingMessage, ServerResponse } from "node:http";
import type { RestOperation } from "@/server/rest/operations";
import { AppError, isAppError } from "@/server/errors";
import { SINGLE_BODY_MAX_BYTES } from "@/lib/limits";
import { findUnstorableField } from "@/lib/stored-text";
import { log } from "@/server/lib/logger";
import { methodLabel, nameRoute, routeSeries } from "@/server/metrics/http";
import { errorAnswer, recordAnswer, refuse, refuseStranger, send, withHeaders } from "@/server/rest/answers";
import { BodyError, DRAIN_LIMIT, isJsonContentType, queryInput, readBody } from "@/server/rest/body";
import { createBodyReader, type BodyReader } from "@/server/http/body-pool";
import { admitKey, identifyKey, knownCaller, restAuthOf } from "@/server/rest/credentials";
import { withIdempotency } from "@/server/rest/idempotency";
import { hasDotSegment } from "@/server/rest/paths";
import { newRecord, type Answer, type RequestRecord } from "@/server/rest/request-record";
import { matchRoute, routeTable, type RestRoute } from "@/server/rest/routes";
import { refuseOtherMerchant } from "@/server/rest/trpc";
import type { AppServices } from "@/server/services";
import { chunkSizeOf } from "@/server/services/batches/batches";

export { isRestPath, restKindOf } from "@/server/rest/paths";

/** A POST's JSON body, read whole (up to the route's limit), parsed and checked, in place or on a pool thread. */
async function readJson(bodies: BodyReader, record: RequestRecord, req: IncomingMessage, route: RestRoute, limit: number) {
  if (!isJsonContentType(req.headers["content-type"])) throw new AppError("UNSUPPORTED_MEDIA_TYPE");
  record.rawBody = await readBody(req, limit);
  // A batch is cut into chunks as it is read, at the size of the caller's mode and the batch's kind (checked again when stored).
  const batchKind = route.rest.batchKind ?? null;
  const read = await bodies.read(record.rawBody, batchKind, chunkSizeOf(record.auth?.mode ?? "sandbox", batchKind));
  record.auditBodies = read.audit;
  if (!read.ok) throw new AppError(read.code, read.message, read.details ? { details: read.details, field: read.details[0]?.field } : undefined);
  return { input: read.input, preparedBatch: read.batch };
}

/** The query's parameters; one holding text no database stores as sent (stored-text.ts) is refused, named. */
function checkedQuery(url: string | undefined) {
  const input = queryInput(url);
  const unstorable = findUnstorableField(input);
  if (unstorable) throw new AppError("VALIDATION_ERROR", `${unstorable.message}.`, { field: unstorable.field, details: [unstorable] });
  return input;
}

/** A big body holds memory until it is answered: a few at a time, the others wait unread. */
async function inBodySlot<T>(bodies: BodyReader, big: boolean, run: () => Promise<T>): Promise<T> {
  if (!big) return run();
  const leave = await bodies.enter();
  try {
    return await run();
  } finally {
    leave();
  }
}

/**
 * The REST door (`/v1`, public `/api`): request ids, route matching, credentials before bodies,
 * body rules, idempotency, the operation's procedure, the API's envelopes and a durable audit
 * record committed before the answer leaves. Runs outside Next.
 */
export function createRestDoor(services: AppServices, operations: RestOperation[]) {
  const routes = routeTable(operations);
  const bodies = createBodyReader();

  /** With a valid key: the body, then the operation (once per Idempotency-Key), as an answer. */
  async function serve(record: RequestRecord, req: IncomingMessage, route: RestRoute, params: Record<string, string>): Promise<Answer> {
    const limit = route.rest.bodyLimit ?? SINGLE_BODY_MAX_BYTES;
    return inBodySlot(bodies, record.method === "POST" && limit > SINGLE_BODY_MAX_BYTES, async () => {
      const read = record.method === "POST" ? await readJson(bodies, record, req, route, limit) : { input: checkedQuery(req.url), preparedBatch: null };
      // Path parameters, decoded once when the route matched, are the ones validated and used.
      const input = { ...read.input, ...params };
      const ctx = { services, auth: record.auth!, requestId: record.requestId, audit: record.audit, preparedBatch: read.preparedBatch };
      // The answer is recorded before its Idempotency-Key stores it: one that cannot be recorded is
      // neither sent nor replayed, and a retry runs again.
      return withIdempotency(services, record, route.rest, req.headers["idempotency-key"], async () => {
        let answer: Answer;
        try {
          if (route.rest.auth === "kyc") refuseOtherMerchant(input, ctx.auth.merchantId);
          const data = await route.operation.run(ctx, input);
          answer = { status: route.rest.successStatus ?? 200, headers: {}, body: data, code: null };
        } catch (err) {
          answer = errorAnswer(err, record, input, route);
        }
        return recordAnswer(services, record, answer);
      });
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, pathname: string, clientIp: string) {
    const record = newRecord(req, pathname, clientIp);
    res.setHeader("X-Request-Id", record.requestId);
    res.setHeader("Cache-Control", "no-store");
    try {
      const shown = pathname.slice(0, 200);
      const match = hasDotSegment(pathname) ? ({ kind: "none" } as const) : matchRoute(routes, record.method, pathname);
      if (match.kind === "none") return await refuseNoRoute(record, req, res, new AppError("NOT_FOUND", `No route ${record.method} ${shown}.`));
      if (match.kind === "wrong-method") {
        nameRoute(res, routeSeries(methodLabel(record.method), match.path));
        const allow = match.allow.join(", ");
        return await refuseNoRoute(record, req, res, new AppError("METHOD_NOT_ALLOWED", `${record.method} is not allowed on ${shown}; use ${allow}.`), {
          Allow: allow,
        });
      }
      nameRoute(res, match.route.series);
      // Credentials first: a caller without a valid key gets no body read, parsed or stored.
      const scheme = match.route.rest.auth;
      let key;
      try {
        key = await identifyKey(services, scheme, req.headers);
      } catch (err) {
        if (isAppError(err)) return await refuseStranger(services, record, req, res, err);
        throw err;
      }
      // Known from here on, so refused calls (suspended, IP, rate limit) still show in the merchant's log.
      record.auth = restAuthOf(key, scheme);
      try {
        await admitKey(services, key, scheme, clientIp);
      } catch (err) {
        if (isAppError(err)) return refuse(services, record, req, res, errorAnswer(err, record));
        throw err;
      }
      await send(services, record, res, await serve(record, req, match.route, match.params));
    } catch (err) {
      failed(record, req, res, err);
    }
  }

  /**
   * A request no route answers (404, 405): a caller with a valid key gets its answer (recorded in its
   * own log) whatever its address did before; only strangers count against their address's limit.
   */
  async function refuseNoRoute(record: RequestRecord, req: IncomingMessage, res: ServerResponse, err: AppError, headers: Record<string, string> = {}) {
    const known = await knownCaller(services, req.headers);
    if (!known) return refuseStranger(services, record, req, res, err, headers);
    record.auth = restAuthOf(known.key, known.scheme);
    refuse(services, record, req, res, withHeaders(errorAnswer(err, record), headers));
  }

  /** A body that could not be read, or a failure of the door itself. */
  function failed(record: RequestRecord, req: IncomingMessage, res: ServerResponse, err: unknown) {
    if (res.headersSent || res.writableEnded) return;
    if (err instanceof BodyError) {
      res.setHeader("Connection", "close");
      log.info("request body refused", { requestId: record.requestId, code: err.code, reason: err.message });
      // A caller with a valid key gets its 413 after the body is dropped, as with a chunked body, so the
      // answer is not lost to the reset a close under a sender causes; anyone else's is not read.
      return refuse(services, record, req, res, errorAnswer(err, record), record.auth ? DRAIN_LIMIT : undefined);
    }
    if (isAppError(err)) return refuse(services, record, req, res, errorAnswer(err, record));
    log.error("REST door failure", { requestId: record.requestId, err });
    refuse(services, record, req, res, errorAnswer(new AppError("INTERNAL_ERROR"), record));
  }

  return { handle, routes, bodies };
}
