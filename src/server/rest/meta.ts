import type { OpenApiMeta } from "trpc-to-openapi";
import type { ErrorCode } from "@/server/errors";
import type { BatchKind } from "@/server/services/batches/batches";

/** What a REST operation declares beside its OpenAPI path: read by the door and the document. */
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
  /** The body is a batch of these items: the door validates them and cuts them into chunks as it reads the body. */
  batchKind?: BatchKind;
  /** The answer holds personal data (KYC): a stored idempotent response is encrypted. */
  sensitive?: boolean;
  /** A body-wide rule the document states that its fields cannot (e.g. "exactly one of uan or pf_number"). */
  documentBody?: Record<string, unknown>;
}

export type AuthScheme = RestMeta["auth"];

/** Every REST operation's meta: its OpenAPI route and its REST facts (what `.meta()` is given). */
export type RestOperationMeta = OpenApiMeta<{ rest: RestMeta }> & { openapi: NonNullable<OpenApiMeta["openapi"]> };

/** The REST tRPC instance's meta type: the shape trpc-to-openapi's generator accepts. */
export type RestProcedureMeta = OpenApiMeta<{ rest?: RestMeta }>;
