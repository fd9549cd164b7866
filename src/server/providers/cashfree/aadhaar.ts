/**
 * Live Aadhaar OTP source: Cashfree Secure ID's offline Aadhaar (`POST /offline-aadhaar/otp`, then
 * `POST /offline-aadhaar/verify` with the OTP and the vendor's `ref_id`). Parakh's own OTP limits
 * are checked by the service before either call.
 *
 *   generate  SUCCESS                                   → sent; `reference` = ref_id
 *             SUCCESS "Aadhaar not linked to mobile…"   → AADHAAR_MOBILE_NOT_LINKED
 *             INVALID, or 400 aadhaar_*                 → INVALID_AADHAAR
 *             409 verification_pending                  → OTP_RESEND_TOO_SOON (Retry-After 30)
 *   verify    VALID                                     → the eKYC record
 *             "OTP entered is invalid", otp_invalid     → wrong OTP
 *             "Otp expired", "Session expired…"         → OTP_EXPIRED
 *             "Aadhaar not linked to mobile number"     → AADHAAR_MOBILE_NOT_LINKED
 *             "Invalid Aadhaar Card"                    → INVALID_AADHAAR
 *             409 verification_pending                  → OTP_VERIFICATION_IN_PROGRESS (Retry-After 30)
 *
 * The answer's XML file link, share code, mobile hash and email are never kept.
 */
import { AppError } from "@/server/errors";
import { unreadableAnswer, type UpstreamAnswer, type UpstreamClient } from "@/server/providers/upstream/client";
import { isoDate, objectBody, text, unexpectedRefusal, upper } from "@/server/providers/cashfree/secure-id";
import { fullAddressOf } from "@/server/providers/aadhaar/address";
import type { AadhaarAddress, AadhaarEkyc, AadhaarProvider } from "@/server/providers/aadhaar/types";

type Json = Record<string, unknown>;

const NOT_LINKED = /not linked to mobile/i;
/** "…ending with 4321" or "XXXXXX4321": only digits the vendor itself gives. */
const MOBILE_DIGITS = /(?:ending(?: with)?|x{4,}|\*{4,})\s*(\d{4})\b/i;

function gender(value: unknown): AadhaarEkyc["gender"] {
  const g = upper(value)?.charAt(0);
  if (g === "M" || g === "F") return g;
  if (g === "T" || g === "O") return "T";
  throw unreadableAnswer("no gender");
}

/** "S/O: Fakkirappa Dollin" → "S/O FAKKIRAPPA DOLLIN". */
function careOf(value: unknown): string {
  return (upper(value) ?? "").replace(/^([SDWC])\s*\/\s*O\s*:?\s*/, "$1/O ");
}

/** The eKYC record in a verify answer (exported for the mapping tests). */
export function aadhaarEkycFromAnswer(body: Json): AadhaarEkyc {
  const dob = isoDate(body.dob);
  const name = upper(body.name);
  if (!dob || !name) throw unreadableAnswer("no name or date of birth");
  const split = body.split_address && typeof body.split_address === "object" ? (body.split_address as Json) : {};
  const part = (key: string) => text(split[key]) ?? "";
  const address: AadhaarAddress = {
    house: part("house"),
    street: part("street"),
    landmark: part("landmark"),
    locality: part("locality"),
    vtc: part("vtc"),
    postOffice: part("po"),
    subDistrict: part("subdist"),
    district: part("dist"),
    state: part("state"),
    country: part("country") || "India",
    pincode: part("pincode"),
  };
  const photo = (text(body.photo_link) ?? "").replace(/^data:[^,]*,/, "");
  return {
    name,
    dob,
    yearOfBirth: text(body.year_of_birth) ?? dob.slice(0, 4),
    gender: gender(body.gender),
    careOf: careOf(body.care_of),
    address,
    fullAddress: fullAddressOf(address),
    photo,
  };
}

function refusal(client: UpstreamClient, answer: UpstreamAnswer, stage: "generate" | "verify"): Error {
  const body = objectBody(answer);
  const code = text(body.code);
  const message = text(body.message) ?? "";
  if (answer.status === 409 && code === "verification_pending") {
    return stage === "generate"
      ? new AppError("OTP_RESEND_TOO_SOON", "The source has just sent an OTP for this number; retry after the time in Retry-After.", { retryAfterSeconds: 30 })
      : new AppError("OTP_VERIFICATION_IN_PROGRESS", undefined, { retryAfterSeconds: 30 });
  }
  if (answer.status === 400 && code !== null && /^aadhaar_/.test(code)) return new AppError("INVALID_AADHAAR");
  if (answer.status === 400 && code === "verification_failed") {
    if (NOT_LINKED.test(message)) return new AppError("AADHAAR_MOBILE_NOT_LINKED");
    if (/expired/i.test(message)) return new AppError("OTP_EXPIRED");
    if (/invalid aadhaar/i.test(message)) return new AppError("INVALID_AADHAAR");
  }
  return unexpectedRefusal(client, answer);
}

export function createCashfreeAadhaarProvider(client: UpstreamClient): AadhaarProvider {
  return {
    vendor: "cashfree",
    async sendOtp(aadhaarNumber) {
      return client.call({ method: "POST", path: "/offline-aadhaar/otp", body: { aadhaar_number: aadhaarNumber } }, (answer) => {
        if (answer.status !== 200) throw refusal(client, answer, "generate");
        const body = objectBody(answer);
        const status = upper(body.status);
        const message = text(body.message) ?? "";
        if (status === "INVALID") throw new AppError("INVALID_AADHAAR");
        if (NOT_LINKED.test(message)) throw new AppError("AADHAAR_MOBILE_NOT_LINKED");
        const reference = text(body.ref_id);
        if (status !== "SUCCESS" || !reference) throw unreadableAnswer("no OTP reference");
        return { mobileLast4: MOBILE_DIGITS.exec(message)?.[1] ?? "", reference };
      });
    },

    async submitOtp(_aadhaarNumber, reference, otp) {
      return client.call({ method: "POST", path: "/offline-aadhaar/verify", body: { otp, ref_id: reference } }, (answer) => {
        const body = objectBody(answer);
        const code = text(body.code);
        const message = text(body.message) ?? "";
        if (answer.status === 400 && (code === "otp_invalid" || (code === "verification_failed" && /otp.*invalid|invalid.*otp/i.test(message)))) {
          return { kind: "wrong-otp" as const };
        }
        if (answer.status !== 200) throw refusal(client, answer, "verify");
        if (upper(body.status) !== "VALID") throw unreadableAnswer("the verify answer is not VALID");
        return { kind: "verified" as const, ekyc: aadhaarEkycFromAnswer(body) };
      });
    },
  };
}
