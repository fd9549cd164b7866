import { z } from "zod";
import { ERROR_CODES, type ErrorCode, type FieldError } from "@/server/errors";

/** The two REST envelope families: `/v1` (snake_case) and `/api` (camelCase). */
export type EnvelopeKind = "v1" | "api";

export function v1Ok<T>(data: T) {
  return { status: "success" as const, data, timestamp: new Date().toISOString() };
}

/** `/v1/employment/epfo/verify` answers without a timestamp (the original interface says so). */
export function v1OkNoTimestamp<T>(data: T) {
  return { status: "success" as const, data };
}

export function apiOk<T>(data: T) {
  return { success: true as const, data };
}

export function apiOkWithMessage<T>(message: string, data: T) {
  return { success: true as const, message, data };
}

export interface ErrorBodyInput {
  code: ErrorCode;
  message?: string;
  details?: FieldError[];
  field?: string;
  extra?: Record<string, unknown>;
}

export function errorBody(kind: EnvelopeKind, requestId: string, e: ErrorBodyInput) {
  const message = e.message ?? ERROR_CODES[e.code].message;
  const error: Record<string, unknown> = { code: e.code, message };
  if (kind === "api" && e.field) error.field = e.field;
  if (e.details?.length) error.details = e.details;
  if (e.extra) Object.assign(error, e.extra);
  return kind === "v1"
    ? { status: "error" as const, error, request_id: requestId, timestamp: new Date().toISOString() }
    : { success: false as const, error, requestId };
}

// Schemas for the OpenAPI document and output validation.

export const v1Envelope = <T extends z.ZodType>(data: T) =>
  z.object({ status: z.literal("success"), data, timestamp: z.string().meta({ description: "ISO 8601 UTC", example: "2026-11-22T10:15:30.123Z" }) });

export const v1EnvelopeNoTimestamp = <T extends z.ZodType>(data: T) => z.object({ status: z.literal("success"), data });

export const apiEnvelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

export const apiEnvelopeWithMessage = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), message: z.string(), data });

const fieldErrorSchema = z.object({ field: z.string(), message: z.string() });

/** Fields some error answers add beside code and message (documented, so strict clients accept them). */
const errorExtras = {
  attemptsRemaining: z.number().int().min(0).optional().meta({ description: "INVALID_OTP: wrong tries left before the OTP request locks." }),
};

export const v1ErrorSchema = z.object({
  status: z.literal("error"),
  error: z.object({ code: z.string(), message: z.string(), details: z.array(fieldErrorSchema).optional(), ...errorExtras }),
  request_id: z.string(),
  timestamp: z.string(),
});

export const apiErrorSchema = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    details: z.array(fieldErrorSchema).optional(),
    ...errorExtras,
  }),
  requestId: z.string(),
});
