import type { IncomingMessage, ServerResponse } from "node:http";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { ErrorCode } from "@/server/errors";
import type { RestState } from "@/server/rest/state";
import type { AppServices } from "@/server/services";

/** What a REST operation declares beside its OpenAPI path; read by the door, middlewares and docs. */
export interface RestMeta {
  /** Which credentials the operation takes (B2). */
  auth: "bearer" | "merchant" | "kyc";
  /** Codes the operation itself can answer with; the door's common codes are added in the docs. */
  errors: ErrorCode[];
  /** Body fields whose bad values have their own code (e.g. `pan` → INVALID_PAN); missing fields stay VALIDATION_ERROR. */
  fieldCodes?: Record<string, ErrorCode>;
  /** HTTP status of a success (default 200). */
  successStatus?: number;
  /** Largest accepted body in bytes (default 1 MiB; batches 8 MiB). */
  bodyLimit?: number;
}

export type Meta = OpenApiMeta<{ rest?: RestMeta }>;

export interface Context {
  services: AppServices;
  /** Set on the REST door (`/v1`, `/api`); null on the dashboard's tRPC endpoint. */
  rest: RestState | null;
  req: IncomingMessage | null;
  res: ServerResponse | null;
}

export const t = initTRPC.context<Context>().meta<Meta>().create();

export const router = t.router;
export const middleware = t.middleware;
