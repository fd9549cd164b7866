import { describe, expect, it } from "vitest";
import { shouldStoreResponse } from "@/server/services/idempotency/idempotency";

/**
 * Which answers an Idempotency-Key keeps for replay (docs/api.md, Conventions): validation failures
 * (400, 413, 415), an empty wallet (402), rate limits (429) and server or source failures (5xx) are
 * not stored, so a retry with the same key runs again; a finished business answer is. The HTTP-level
 * counterparts are in tests/integration/idempotency.test.ts, kyc.test.ts (402) and rate-limit.test.ts;
 * today 413, 415 and 429 are answered before the idempotency middleware runs, so only this table sees
 * the decision itself.
 */
describe("shouldStoreResponse", () => {
  it.each([
    [400, "VALIDATION_ERROR"],
    [400, "INVALID_PAN"],
    [400, "INVALID_JSON"],
    [413, "PAYLOAD_TOO_LARGE"],
    [415, "UNSUPPORTED_MEDIA_TYPE"],
    [402, "INSUFFICIENT_BALANCE"],
    [429, "RATE_LIMITED"],
    [409, "IDEMPOTENCY_KEY_IN_USE"],
    [409, "OTP_VERIFICATION_IN_PROGRESS"],
    [500, "INTERNAL_ERROR"],
    [502, "UPSTREAM_ERROR"],
    [503, "SOURCE_UNAVAILABLE"],
    [503, "SERVICE_UNAVAILABLE"],
    [504, "SOURCE_TIMEOUT"],
  ])("does not store %i %s", (status, code) => {
    expect(shouldStoreResponse(status, code)).toBe(false);
  });

  it.each([
    [200, null],
    [202, null],
    [404, "PAYMENT_NOT_FOUND"],
    [409, "DUPLICATE_ORDER_ID"],
    [409, "ORDER_ALREADY_PAID"],
  ])("stores %i %s", (status, code) => {
    expect(shouldStoreResponse(status, code)).toBe(true);
  });
});
