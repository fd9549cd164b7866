import { AppError, type ErrorCode } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { errorResponse as answerFor } from "@/server/rest/errors";

/**
 * An error answer for the app's own endpoints outside the REST door (health, readiness, the CSV
 * export): the same mapping as the door's (rest/errors.ts), in the `/api` envelope.
 */
export function errorPayload(err: AppError | ErrorCode, requestId = newId("req")) {
  const { status, body, headers } = answerFor(typeof err === "string" ? new AppError(err) : err, { kind: "api", requestId });
  return { status, body, headers };
}

export function errorResponse(err: AppError | ErrorCode, requestId?: string): Response {
  const { status, body, headers } = errorPayload(err, requestId);
  return Response.json(body, { status, headers: { "Cache-Control": "no-store", ...headers } });
}
