import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getToken } from "next-auth/jwt";
import type { NextRequest } from "next/server";
import { dashboardRouter } from "@/server/api/dashboard/router";
import { TRPC_MAX_BATCH } from "@/lib/trpc/limits";
import { getConfig } from "@/server/config";
import { isAppError } from "@/server/errors";
import { isSameOriginRequest } from "@/server/http/same-origin";
import { getServices } from "@/server/services";
import type { Context } from "@/server/trpc/init";

/** The dashboard's tRPC endpoint: session from the next-auth cookie, CSRF facts from the headers. */
function handler(req: NextRequest) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: dashboardRouter,
    // A batch is one HTTP request doing many calls; bound it (the client's batch link uses the same size).
    maxBatchSize: TRPC_MAX_BATCH,
    // A refusal that says when to come back (an unavailable payment network) says it as the API does.
    responseMeta: ({ errors }) => {
      const seconds = errors.map((e) => (isAppError(e.cause) ? e.cause.retryAfterSeconds : undefined)).find((s) => s !== undefined);
      return seconds === undefined ? {} : { headers: new Headers({ "Retry-After": String(seconds) }) };
    },
    createContext: async (): Promise<Context> => {
      const token = await getToken({ req, secret: getConfig().secrets.nextAuthSecret });
      const sameOrigin = isSameOriginRequest(req.headers.get("x-parakh-csrf"), req.headers.get("origin"), req.headers.get("host"));
      return {
        services: getServices(),
        // The procedure builders check the session version against the account (revocation).
        session:
          token?.sub && token.role ? { id: token.sub, email: token.email ?? "", role: token.role, sessionVersion: token.sv, sessionId: token.sid } : null,
        clientIp: req.headers.get("x-parakh-client-ip"),
        sameOrigin,
      };
    },
  });
}

export { handler as GET, handler as POST };
