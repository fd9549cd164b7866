/**
 * A family's vendors tried in order (contract C6): the next vendor is tried when the current one's
 * breaker is open, its bulkhead is full, or its call ended without a business answer (connect
 * error, 5xx, 429, deadline, an answer Parakh cannot read, the vendor refusing Parakh's account);
 * never after a business answer (not on record, an invalid account, a PAN the vendor will not
 * take): that is the answer. All tries share the whole-call deadline; a vendor that is not the last
 * may use at most `share` of what is left of it, so a hanging first vendor still leaves the next
 * one time to answer. When every vendor failed, the last failure is the answer (C2's mapping).
 */
import { AppError, isAppError } from "@/server/errors";
import { noteFailover, type UpstreamFamily, type UpstreamVendor } from "@/server/providers/upstream/client";

/** A vendor that cannot take this call at all (Setu without the person's consent): the next vendor is tried, and it is not counted as a failure. */
export class VendorNotApplicable extends Error {}

/** Parakh's codes for a call that ended without the vendor's word on the subject. */
const NO_BUSINESS_ANSWER = new Set(["SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT", "UPSTREAM_ERROR"]);

export function endedWithoutAnswer(err: unknown): boolean {
  return err instanceof VendorNotApplicable || (isAppError(err) && NO_BUSINESS_ANSWER.has(err.code));
}

export interface VendorTry<T> {
  vendor: UpstreamVendor;
  /** One vendor's call, which must end by `deadlineAt` (Date.now() milliseconds). */
  run(deadlineAt: number): Promise<T>;
}

export interface FailoverSettings {
  /** The whole call's deadline (UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number;
  /** UPSTREAM_FIRST_VENDOR_SHARE. */
  share: number;
}

/** The first answer of the family's vendors, with the vendor that gave it. */
export async function firstAnswer<T>(family: UpstreamFamily, tries: VendorTry<T>[], settings: FailoverSettings): Promise<{ value: T; vendor: UpstreamVendor }> {
  const endAt = Date.now() + settings.timeoutMs;
  let failure: unknown = null;
  for (let i = 0; i < tries.length; i++) {
    const { vendor, run } = tries[i]!;
    const left = endAt - Date.now();
    if (left <= 0) break;
    const last = i === tries.length - 1;
    const deadlineAt = last ? endAt : Date.now() + Math.max(1, Math.floor(left * settings.share));
    try {
      return { value: await run(deadlineAt), vendor };
    } catch (err) {
      if (!endedWithoutAnswer(err)) throw err;
      // A vendor that could not take the call leaves the failure before it as the answer.
      if (!(err instanceof VendorNotApplicable) || failure === null) failure = err;
      if (!last) noteFailover(vendor, family);
    }
  }
  if (failure === null || failure instanceof VendorNotApplicable) {
    // Only vendors that cannot take the call (Setu without the person's consent): nothing was called.
    throw new AppError("SOURCE_UNAVAILABLE", "No configured live source can take this call without the person's consent and its purpose.", {
      retryAfterSeconds: 300,
    });
  }
  throw failure;
}
