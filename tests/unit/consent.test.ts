import { describe, expect, it } from "vitest";
import type { PanLookupOptions, PanProvider } from "@/server/providers/pan/types";
import type { EpfoLookupOptions, EpfoProvider } from "@/server/providers/epfo/types";
import { consentFor, vendorConsentOf, type StandingConsent } from "@/server/services/consent/consent";
import { verifyEpfo } from "@/server/services/employment/verify-epfo";
import { checkPan } from "@/server/services/identity/verify-pan";

// The consent a check is made under (contract C6), with the expected records written by hand.
const PURPOSE = "Loan application: KYC of the borrower before disbursal";
const DEFAULT = "Employee onboarding: identity check before the offer letter";
const standing = { purpose: DEFAULT, standing: true };
const none: StandingConsent = { purpose: null, standing: false };

describe("consentFor", () => {
  it("takes each request field over the merchant's standing settings", () => {
    expect(consentFor("live", { consent: true, purpose: PURPOSE }, standing)).toEqual({ consent: true, purpose: PURPOSE, source: "request" });
    expect(consentFor("live", {}, standing)).toEqual({ consent: true, purpose: DEFAULT, source: "standing" });
    expect(consentFor("live", { purpose: PURPOSE }, standing)).toEqual({ consent: true, purpose: PURPOSE, source: "standing" });
    expect(consentFor("live", { consent: true }, standing)).toEqual({ consent: true, purpose: DEFAULT, source: "request" });
  });

  it("refuses a live check without consent, with consent false, or without a purpose, naming what is missing", () => {
    const refusal = (sent: object, merchant = none) => {
      try {
        consentFor("live", sent, merchant);
      } catch (err) {
        return err as { code: string; details: { field: string }[] };
      }
      throw new Error("not refused");
    };
    expect(refusal({})).toMatchObject({ code: "CONSENT_REQUIRED", details: [{ field: "consent" }, { field: "purpose" }] });
    expect(refusal({ consent: true })).toMatchObject({ details: [{ field: "purpose" }] });
    expect(refusal({ purpose: PURPOSE })).toMatchObject({ details: [{ field: "consent" }] });
    expect(refusal({ consent: false }, standing)).toMatchObject({ details: [{ field: "consent" }] });
    expect(refusal({}, { purpose: DEFAULT, standing: false })).toMatchObject({ details: [{ field: "consent" }] });
  });

  it("never refuses a sandbox check, and keeps what it was given", () => {
    expect(consentFor("sandbox", {}, none)).toEqual({ consent: null, purpose: null, source: null });
    expect(consentFor("sandbox", { consent: false }, none)).toEqual({ consent: false, purpose: null, source: "request" });
  });

  it("keeps no Aadhaar number typed into a purpose", () => {
    expect(consentFor("live", { consent: true, purpose: "KYC for Aadhaar 2345 6789 0009 holder" }, none).purpose).not.toMatch(/0009/);
  });
});

describe("what a live vendor call is told", () => {
  const onRecord = { consent: true, purpose: PURPOSE, source: "standing" as const };
  it("is the purpose and source in live mode, nothing in sandbox", () => {
    expect(vendorConsentOf("live", onRecord)).toEqual({ purpose: PURPOSE, source: "standing" });
    expect(vendorConsentOf("sandbox", onRecord)).toBeUndefined();
  });

  it("reaches the PAN and EPFO providers' inputs", async () => {
    const seen: (PanLookupOptions | EpfoLookupOptions | undefined)[] = [];
    const pan: PanProvider = {
      lookup: async (p, options) => {
        seen.push(options);
        return { pan: p, status: "INVALID", name: null, category: "INDIVIDUAL", aadhaarSeedingStatus: "NOT_LINKED", dob: null, remarks: null };
      },
    };
    const epfo: EpfoProvider = {
      byUan: async (_uan, options) => {
        seen.push(options);
        return null;
      },
      byPfNumber: async () => null,
    };
    const consent = { purpose: PURPOSE, source: "request" as const };
    await checkPan(pan, "ABCPK1234F", "A Name", undefined, consent);
    await checkPan(pan, "ABCPK1234F", null);
    await expect(verifyEpfo(epfo, { uan: "100200300400" }, consent)).rejects.toMatchObject({ code: "UAN_NOT_FOUND" });
    expect(seen).toEqual([{ name: "A Name", consent }, { name: null }, { consent }]);
  });
});
