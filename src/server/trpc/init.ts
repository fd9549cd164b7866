import { initTRPC } from "@trpc/server";
import { ZodError } from "zod";
import { isAppError } from "@/server/errors";
import type { AppServices } from "@/server/services";

/** The signed-in dashboard user (from the next-auth session). */
export interface SessionUser {
  id: string;
  email: string;
  role: "merchant" | "admin";
  /** The account's session version when the session began (absent in tokens from before versions: 0). */
  sessionVersion?: number;
  /** The session's own id, set at sign-in (absent in tokens from before it): a password confirmation is good in its session only. */
  sessionId?: string;
}

/** The dashboard's tRPC context: the session user, the client IP and whether the request passed the CSRF check. */
export interface Context {
  services: AppServices;
  session: SessionUser | null;
  clientIp: string | null;
  sameOrigin: boolean;
}

/** The dashboard's tRPC instance (the REST operations have their own: src/server/rest/trpc.ts). */
export const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const appCode = isAppError(cause) ? cause.code : undefined;
    const fieldErrors =
      error.code === "BAD_REQUEST" && cause instanceof ZodError
        ? Object.fromEntries(cause.issues.map((i) => [i.path.join(".") || "form", i.message]))
        : isAppError(cause) && cause.field
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
