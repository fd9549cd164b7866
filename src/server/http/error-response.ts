import { AppError, type ErrorCode } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { errorBody } from "@/server/rest/envelope";

/**
 * An error answer for the app's own endpoints outside the REST door (health, readiness, the CSV
 * export), in the `/api` envelope with the registry's status: one shape for every error we write.
 */
export function errorPayload(err: AppError | ErrorCode, requestId = newId("req")) {
  const e = typeof err === "string" ? new AppError(err) : err;
  return { status: e.status, body: errorBody("api", requestId, { code: e.code, message: e.message, details: e.details, field: e.field }) };
}

export function errorResponse(err: AppError | ErrorCode, requestId?: string): Response {
  const { status, body } = errorPayload(err, requestId);
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}
