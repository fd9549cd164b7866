import type { IncomingMessage, ServerResponse } from "node:http";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError } from "zod";
import { AppError, type ErrorCode } from "@/server/errors";
import type { RestState } from "@/server/rest/state";
import type { AppServices } from "@/server/services";

/** What a REST operation declares beside its OpenAPI path; read by the door, middlewares and docs. */
export interface RestMeta {
  /** Which credentials the operation takes (see src/server/rest/credentials.ts). */
  auth: "bearer" | "merchant" | "kyc";
  /** Codes the operation itself can answer with; the door's common codes are added in the docs. */
  errors: ErrorCode[];
  /** Body fields whose bad values have their own code (e.g. `pan` → INVALID_PAN); missing fields stay VALIDATION_ERROR. */
  fieldCodes?: Record<string, ErrorCode>;
  /** What such a field's error says when its value is not even of its type (default: the code's own message). */
  fieldMessages?: Record<string, string>;
  /** HTTP status of a success (default 200). */
  successStatus?: number;
  /** Largest accepted body in bytes (default 1 MiB; batches 8 MiB). */
  bodyLimit?: number;
  /** The answer holds personal data (KYC): a stored idempotent response is encrypted. */
  sensitive?: boolean;
}

export type Meta = OpenApiMeta<{ rest?: RestMeta }>;

/** The signed-in dashboard user (from the next-auth session). */
export interface SessionUser {
  id: string;
  email: string;
  role: "merchant" | "admin";
  /** The account's session version when the session began (absent in tokens from before versions: 0). */
  sessionVersion?: number;
}

export interface Context {
  services: AppServices;
  /** Set on the REST door (`/v1`, `/api`); null on the dashboard's tRPC endpoint. */
  rest: RestState | null;
  req: IncomingMessage | null;
  res: ServerResponse | null;
  /** Dashboard only: the session user, the client IP and whether the request passed the CSRF check. */
  session?: SessionUser | null;
  clientIp?: string | null;
  sameOrigin?: boolean;
}

export const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      const appCode = cause instanceof AppError ? cause.code : undefined;
      const fieldErrors =
        error.code === "BAD_REQUEST" && cause instanceof ZodError
          ? Object.fromEntries(cause.issues.map((i) => [i.path.join(".") || "form", i.message]))
          : cause instanceof AppError && cause.field
            ? { [cause.field]: cause.message }
            : undefined;
      const message =
        cause instanceof ZodError
          ? "Please correct the highlighted fields."
          : error.code === "INTERNAL_SERVER_ERROR" && !appCode
            ? "Something went wrong. Please try again."
            : shape.message;
      return { ...shape, message, data: { code: shape.data.code, httpStatus: shape.data.httpStatus, appCode, fieldErrors } };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
