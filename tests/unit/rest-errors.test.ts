import fs from "node:fs";
import { TRPCError } from "@trpc/server";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";

// mapError logs unexpected errors, and the logger reads the config: keep it in a temp folder and quiet.
// Vitest copies Vite's import.meta.env into process.env, so BASE_URL is "/" here, which the config
// (rightly) refuses as a URL; drop it.
const tmp = vi.hoisted(() => {
  // vi.hoisted runs before imports: require is the only way to reach node modules here.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { mkdtempSync } = require("node:fs") as typeof import("node:fs");
  const { join } = require("node:path") as typeof import("node:path");
  const { tmpdir } = require("node:os") as typeof import("node:os");
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dir = mkdtempSync(join(tmpdir(), "parakh-rest-errors-"));
  process.env.DATA_DIR = dir;
  process.env.LOG_LEVEL = "silent";
  delete process.env.BASE_URL;
  return dir;
});

import { AppError, ERROR_CODES, errorStatus, type ErrorCode } from "@/server/errors";
import { errorBody } from "@/server/rest/envelope";
import { errorResponse, mapError, mapValidationError } from "@/server/rest/errors";
import type { RestMeta } from "@/server/rest/meta";

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const PAN_RE = /^[A-Z]{3}[PCHFATBLJG][A-Z][0-9]{4}[A-Z]$/;

const panSchema = z.object({ pan: z.string().regex(PAN_RE, "must be a valid PAN"), name: z.string().min(1).max(100).optional() });
const panMeta: RestMeta = { auth: "bearer", errors: ["INVALID_PAN"], fieldCodes: { pan: "INVALID_PAN" } };

function zodErrorOf(schema: z.ZodType, input: unknown): z.ZodError {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected the schema to fail");
  return result.error;
}

describe("mapValidationError", () => {
  it("missing field → VALIDATION_ERROR with '<field> is required'", () => {
    const input = { name: "A" };
    const mapped = mapValidationError(zodErrorOf(panSchema, input), input, panMeta);
    expect(mapped.code).toBe("VALIDATION_ERROR");
    expect(mapped.details).toEqual([{ field: "pan", message: "pan is required" }]);
    expect(mapped.field).toBe("pan");
    expect(mapped.message).toBe("pan is required");
  });

  it("a missing field with a field code still answers VALIDATION_ERROR, not the field's code", () => {
    const mapped = mapValidationError(zodErrorOf(panSchema, {}), {}, panMeta);
    expect(mapped.code).toBe("VALIDATION_ERROR");
  });

  it("present but bad field with a fieldCodes entry → that code and field", () => {
    const input = { pan: "ABCDE12345" };
    const mapped = mapValidationError(zodErrorOf(panSchema, input), input, panMeta);
    expect(mapped.code).toBe("INVALID_PAN");
    expect(mapped.field).toBe("pan");
    expect(mapped.message).toBe(ERROR_CODES.INVALID_PAN.message);
    expect(mapped.details).toEqual([{ field: "pan", message: "pan must be a valid PAN" }]);
  });

  it("the field code's details only name that field", () => {
    const input = { pan: "bad", name: "" };
    const mapped = mapValidationError(zodErrorOf(panSchema, input), input, panMeta);
    expect(mapped.code).toBe("INVALID_PAN");
    expect(mapped.details?.map((d) => d.field)).toEqual(["pan"]);
  });

  it("without meta, a bad field is a plain VALIDATION_ERROR", () => {
    const input = { pan: "bad" };
    const mapped = mapValidationError(zodErrorOf(panSchema, input), input, undefined);
    expect(mapped.code).toBe("VALIDATION_ERROR");
    expect(mapped.details).toEqual([{ field: "pan", message: "pan must be a valid PAN" }]);
  });

  it("wrong type → '<field> must be a string'", () => {
    const input = { pan: 12345 };
    const mapped = mapValidationError(zodErrorOf(panSchema, input), input, undefined);
    expect(mapped.details).toEqual([{ field: "pan", message: "pan must be a string" }]);
  });

  it("uses 'an' before a vowel ('must be an object')", () => {
    const schema = z.object({ meta: z.object({ email: z.string() }) });
    const input = { meta: "x" };
    const mapped = mapValidationError(zodErrorOf(schema, input), input, undefined);
    expect(mapped.details).toEqual([{ field: "meta", message: "meta must be an object" }]);
  });

  it("names nested fields with a dotted path", () => {
    const schema = z.object({ meta: z.object({ email: z.email(), phone: z.string().optional() }) });
    const input = { meta: { email: 5 } };
    const mapped = mapValidationError(zodErrorOf(schema, input), input, undefined);
    expect(mapped.code).toBe("VALIDATION_ERROR");
    expect(mapped.details).toEqual([{ field: "meta.email", message: "meta.email must be a string" }]);
  });

  it("lists one entry per bad field, in order, and joins them into the message", () => {
    const schema = z.object({ a: z.string(), b: z.number(), c: z.string().min(3).regex(/^x+$/) });
    const input = { b: "nope", c: "y" };
    const mapped = mapValidationError(zodErrorOf(schema, input), input, undefined);
    expect(mapped.details?.map((d) => d.field)).toEqual(["a", "b", "c"]);
    expect(mapped.details?.[0]).toEqual({ field: "a", message: "a is required" });
    expect(mapped.details?.[1]).toEqual({ field: "b", message: "b must be a number" });
    expect(mapped.message).toBe(mapped.details!.map((d) => d.message).join("; "));
  });

  it("a refinement with params.code and when: () => true wins over field codes", () => {
    const schema = z
      .object({
        uan: z
          .string()
          .regex(/^\d{12}$/)
          .optional(),
        pf_number: z.string().optional(),
      })
      .refine((v) => (v.uan === undefined) !== (v.pf_number === undefined), {
        message: "send exactly one of uan or pf_number",
        params: { code: "VALIDATION_ERROR" },
        when: () => true,
      });
    const meta: RestMeta = { auth: "bearer", errors: [], fieldCodes: { uan: "INVALID_UAN", pf_number: "INVALID_PF_NUMBER" } };

    const both = { uan: "123", pf_number: "MH/BAN/0000064/000/0000123" };
    const mapped = mapValidationError(zodErrorOf(schema, both), both, meta);
    expect(mapped).toMatchObject({ code: "VALIDATION_ERROR", field: "body", message: "send exactly one of uan or pf_number" });
    expect(mapped.details).toEqual([{ field: "body", message: "send exactly one of uan or pf_number" }]);

    // With only one present, the refinement passes and the field's own code applies.
    const onlyBadUan = { uan: "123" };
    expect(mapValidationError(zodErrorOf(schema, onlyBadUan), onlyBadUan, meta).code).toBe("INVALID_UAN");

    // Neither present.
    expect(mapValidationError(zodErrorOf(schema, {}), {}, meta).code).toBe("VALIDATION_ERROR");
  });

  it("a refinement's params.code can name a specific code", () => {
    const schema = z.object({ amount: z.number() }).refine((v) => v.amount <= 100000, {
      message: "too much",
      path: ["amount"],
      params: { code: "AMOUNT_LIMIT_EXCEEDED" },
    });
    const input = { amount: 200000 };
    expect(mapValidationError(zodErrorOf(schema, input), input, undefined)).toMatchObject({
      code: "AMOUNT_LIMIT_EXCEEDED",
      field: "amount",
      message: "amount too much",
    });
  });

  it.each<[string, unknown]>([
    ["undefined", undefined],
    ["null", null],
    ["a string", "pan=ABCPK1234F"],
    ["a number", 42],
    ["an array", [{ pan: "ABCPK1234F" }]],
  ])("non-object raw input (%s) → 'The request body must be a JSON object.'", (_why, raw) => {
    const mapped = mapValidationError(zodErrorOf(panSchema, raw), raw, panMeta);
    expect(mapped.code).toBe("VALIDATION_ERROR");
    expect(mapped.message).toBe("The request body must be a JSON object.");
    expect(mapped.details).toEqual([{ field: "body", message: "must be a JSON object" }]);
  });
});

describe("mapError", () => {
  it("passes an AppError through, with its options", () => {
    const err = new AppError("INVALID_OTP", "The OTP is incorrect.", { extra: { attemptsRemaining: 2 }, field: "otp" });
    expect(mapError(err, {}, undefined, "req_1")).toMatchObject({
      code: "INVALID_OTP",
      message: "The OTP is incorrect.",
      field: "otp",
      extra: { attemptsRemaining: 2 },
    });
  });

  it("unwraps an AppError that is the cause of a TRPCError", () => {
    const err = new TRPCError({ code: "TOO_MANY_REQUESTS", cause: new AppError("RATE_LIMITED", undefined, { retryAfterSeconds: 3 }) });
    expect(mapError(err, {}, undefined, "req_1")).toMatchObject({ code: "RATE_LIMITED", retryAfterSeconds: 3 });
  });

  it("maps a tRPC input validation failure through mapValidationError", () => {
    const input = { pan: "nope" };
    const err = new TRPCError({ code: "BAD_REQUEST", cause: zodErrorOf(panSchema, input) });
    expect(mapError(err, input, panMeta, "req_1")).toMatchObject({ code: "INVALID_PAN", field: "pan" });
  });

  it("hides anything unexpected behind INTERNAL_ERROR with no detail", () => {
    const mapped = mapError(new Error('relation "Payment" does not exist'), {}, undefined, "req_1");
    expect(mapped).toEqual({ code: "INTERNAL_ERROR" });
  });
});

describe("errorResponse", () => {
  it("gives the status, the error code and Retry-After with the envelope", () => {
    const answer = errorResponse(new AppError("SOURCE_TIMEOUT", undefined, { retryAfterSeconds: 5 }), { kind: "v1", requestId: "req_abc" }, {});
    expect(answer.status).toBe(504);
    expect(answer.code).toBe("SOURCE_TIMEOUT");
    expect(answer.headers["Retry-After"]).toBe("5");
    expect(answer.body).toMatchObject({ status: "error", error: { code: "SOURCE_TIMEOUT" }, request_id: "req_abc" });
  });

  it("gives a validation failure 400 in the /api envelope", () => {
    const input = { name: "x" };
    const answer = errorResponse(
      new TRPCError({ code: "BAD_REQUEST", cause: zodErrorOf(panSchema, input) }),
      { kind: "api", requestId: "req_abc" },
      input,
      panMeta,
    );
    expect(answer.status).toBe(400);
    expect(answer.headers).toEqual({});
    expect(answer.body).toEqual({
      success: false,
      error: { code: "VALIDATION_ERROR", message: "pan is required", field: "pan", details: [{ field: "pan", message: "pan is required" }] },
      requestId: "req_abc",
    });
  });
});

describe("errorBody", () => {
  const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  it("/v1 envelope: {status:'error', error:{code,message}, request_id, timestamp}", () => {
    const body = errorBody("v1", "req_x", { code: "UNAUTHORIZED" });
    expect(body).toEqual({
      status: "error",
      error: { code: "UNAUTHORIZED", message: ERROR_CODES.UNAUTHORIZED.message },
      request_id: "req_x",
      timestamp: expect.stringMatching(ISO_MS),
    });
  });

  it("/v1 envelope never carries `field` (not in the v1 shape)", () => {
    const body = errorBody("v1", "req_x", { code: "INVALID_PAN", field: "pan" });
    expect(body.error).not.toHaveProperty("field");
  });

  it("/api envelope: {success:false, error:{code,message,field?}, requestId}", () => {
    expect(errorBody("api", "req_y", { code: "IP_NOT_WHITELISTED" })).toEqual({
      success: false,
      error: { code: "IP_NOT_WHITELISTED", message: ERROR_CODES.IP_NOT_WHITELISTED.message },
      requestId: "req_y",
    });
    expect(errorBody("api", "req_y", { code: "INVALID_AMOUNT", field: "amount", message: "bad amount" })).toEqual({
      success: false,
      error: { code: "INVALID_AMOUNT", message: "bad amount", field: "amount" },
      requestId: "req_y",
    });
  });

  it("includes details only when non-empty", () => {
    const details = [{ field: "pan", message: "pan is required" }];
    expect(errorBody("v1", "r", { code: "VALIDATION_ERROR", details }).error.details).toEqual(details);
    expect(errorBody("api", "r", { code: "VALIDATION_ERROR", details }).error.details).toEqual(details);
    expect(errorBody("v1", "r", { code: "VALIDATION_ERROR", details: [] }).error).not.toHaveProperty("details");
    expect(errorBody("api", "r", { code: "VALIDATION_ERROR", details: [] }).error).not.toHaveProperty("details");
    expect(errorBody("api", "r", { code: "VALIDATION_ERROR" }).error).not.toHaveProperty("details");
  });

  it("merges extra top-level fields into error (e.g. attemptsRemaining)", () => {
    expect(errorBody("api", "r", { code: "INVALID_OTP", extra: { attemptsRemaining: 1 } }).error).toEqual({
      code: "INVALID_OTP",
      message: ERROR_CODES.INVALID_OTP.message,
      attemptsRemaining: 1,
    });
  });
});

describe("ERROR_CODES matches the API's error-code registry", () => {
  // The API's error-code registry, written out as the source of truth.
  const CONTRACT_CODES: Record<number, string[]> = {
    400: [
      "VALIDATION_ERROR",
      "INVALID_JSON",
      "INVALID_PAN",
      "INVALID_UAN",
      "INVALID_PF_NUMBER",
      "INVALID_AADHAAR",
      "INVALID_IFSC",
      "INVALID_ACCOUNT_NUMBER",
      "INVALID_ORDER_ID",
      "INVALID_AMOUNT",
      "AMOUNT_LIMIT_EXCEEDED",
      "INVALID_REDIRECT_URL",
      "BATCH_TOO_LARGE",
      "SIGNATURE_INVALID",
      "ORDER_MISMATCH",
      "REFUND_EXCEEDS_AMOUNT",
    ],
    401: ["UNAUTHORIZED"],
    402: ["INSUFFICIENT_BALANCE"],
    403: ["IP_NOT_WHITELISTED", "LIVE_MODE_NOT_ENABLED", "MERCHANT_MISMATCH", "MERCHANT_SUSPENDED", "BROWSER_REQUEST_FORBIDDEN"],
    404: ["NOT_FOUND", "PAYMENT_NOT_FOUND", "UAN_NOT_FOUND", "PF_NUMBER_NOT_FOUND", "BATCH_NOT_FOUND", "OTP_REQUEST_NOT_FOUND", "REFUND_NOT_FOUND"],
    405: ["METHOD_NOT_ALLOWED"],
    409: [
      "DUPLICATE_ORDER_ID",
      "ORDER_ALREADY_PAID",
      "IDEMPOTENCY_KEY_IN_USE",
      "OTP_ALREADY_USED",
      "PAYMENT_NOT_REFUNDABLE",
      "DUPLICATE_REFUND_ID",
      "PAYMENT_NOT_PAYABLE",
      "OTP_VERIFICATION_IN_PROGRESS",
    ],
    410: ["OTP_EXPIRED"],
    413: ["PAYLOAD_TOO_LARGE"],
    415: ["UNSUPPORTED_MEDIA_TYPE"],
    // CONSENT_REQUIRED: contract C6.
    422: ["IDEMPOTENCY_KEY_MISMATCH", "INVALID_OTP", "AADHAAR_MOBILE_NOT_LINKED", "AADHAAR_LOCKED", "LOOKUP_NOT_SUPPORTED", "CONSENT_REQUIRED"],
    429: ["RATE_LIMITED", "OTP_RESEND_TOO_SOON", "OTP_GENERATION_LIMIT", "OTP_ATTEMPTS_EXCEEDED"],
    500: ["INTERNAL_ERROR"],
    502: ["UPSTREAM_ERROR"],
    503: ["SOURCE_UNAVAILABLE", "SERVICE_UNAVAILABLE"],
    504: ["SOURCE_TIMEOUT"],
  };
  // Codes the service adds beyond the registry (additive, allowed).
  const EXTRAS: Record<string, number> = { FORBIDDEN: 403, CONFLICT: 409, ATTEMPT_NOT_FOUND: 404, REQUEST_HEADERS_TOO_LARGE: 431, REAUTH_REQUIRED: 403 };

  const contractEntries = Object.entries(CONTRACT_CODES).flatMap(([status, codes]) => codes.map((code) => [code, Number(status)] as const));

  it.each(contractEntries)("%s → HTTP %i", (code, status) => {
    expect(code in ERROR_CODES).toBe(true);
    expect(ERROR_CODES[code as ErrorCode].status).toBe(status);
    expect(errorStatus(code as ErrorCode)).toBe(status);
    expect(new AppError(code as ErrorCode).status).toBe(status);
  });

  it("has no codes beyond the registry other than the listed extras, with their statuses", () => {
    const inContract = new Set(contractEntries.map(([code]) => code));
    const beyond = Object.keys(ERROR_CODES).filter((c) => !inContract.has(c));
    expect(beyond.sort()).toEqual(Object.keys(EXTRAS).sort());
    for (const [code, status] of Object.entries(EXTRAS)) expect(ERROR_CODES[code as ErrorCode].status).toBe(status);
  });

  it("every code has a non-empty message", () => {
    for (const [code, def] of Object.entries(ERROR_CODES)) expect(def.message.length, code).toBeGreaterThan(0);
  });
});
