import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(DB_TARGETS)("/v1 identity and employment on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let auth: Record<string, string>;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(env.server.url, path, { method: "POST", body, headers: { ...auth, ...headers } });

  beforeAll(async () => {
    env = await startFor(target);
    m = await createMerchantViaCli(env.server.env);
    auth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
  });
  afterAll(async () => env?.stop());

  describe("PAN verification", () => {
    it("answers a valid individual PAN exactly as the API describes it", async () => {
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "Rakesh Kumar" });
      expect(r.status).toBe(200);
      expect(r.headers["x-request-id"]).toMatch(/^req_[A-Za-z0-9]{16,}$/);
      expect(r.headers["content-type"]).toMatch(/application\/json/);
      const body = r.json;
      expect(Object.keys(body).sort()).toEqual(["data", "status", "timestamp"]);
      expect(body.status).toBe("success");
      expect(body.timestamp).toMatch(ISO_MS);
      const d = body.data;
      expect(d.pan).toBe("ABCPK1234F");
      expect(d.status).toBe("VALID");
      expect(d.category).toBe("INDIVIDUAL");
      expect(d.aadhaar_linked).toBe(true);
      expect(d.aadhaar_seeding_status).toBe("LINKED");
      expect(d.name).toBe(d.name.toUpperCase());
      expect(d.name.split(" ").at(-1)[0]).toBe("K");
      expect(typeof d.name_match).toBe("number");
      expect(d.name_match).toBeGreaterThanOrEqual(0);
      expect(d.name_match).toBeLessThanOrEqual(100);
      expect(["MATCH", "PARTIAL", "NO_MATCH"]).toContain(d.name_match_result);
    });

    it("is deterministic and scores the name on record as 100", async () => {
      const a = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F" });
      const b = await post("/v1/identity/pan/verify", { pan: "abcpk1234f" });
      expect(a.json.data).toEqual(b.json.data);
      expect(a.json.data.name_match).toBeNull();
      expect(a.json.data.name_match_result).toBeNull();
      const c = await post("/v1/identity/pan/verify", { pan: "  ABCPK1234F ", name: `Mr. ${a.json.data.name.toLowerCase()}` });
      expect(c.json.data.name_match).toBe(100);
      expect(c.json.data.name_match_result).toBe("MATCH");
    });

    it("reads a company's legal form either way: Pvt. Ltd. is Private Limited, and two companies sharing only it do not match", async () => {
      // The sandbox's record for ABCCK1234F (a C PAN: a company).
      const spelled = async (name: string) => (await post("/v1/identity/pan/verify", { pan: "ABCCK1234F", name })).json.data;
      expect(await spelled("Kohli Engineering Pvt. Ltd.")).toMatchObject({
        name: "KOHLI ENGINEERING PRIVATE LIMITED",
        category: "COMPANY",
        name_match: 100,
        name_match_result: "MATCH",
      });
      expect((await spelled("M/s Kohli Engineering")).name_match_result).toBe("MATCH");
      expect((await spelled("Zoya Engineering Private Limited")).name_match_result).toBe("NO_MATCH");
      expect((await spelled("Kohli Engineering LLP")).name_match_result).toBe("PARTIAL");
    });

    it.each([
      ["ABCPK9991F", { status: "INVALID", name: null, name_match: null }],
      ["ABCPK9992F", { status: "DEACTIVATED" }],
      ["ABCPK9993F", { status: "DELETED" }],
      ["ABCPK9994F", { status: "VALID", aadhaar_linked: false, aadhaar_seeding_status: "NOT_LINKED" }],
      ["ABCCK1234F", { status: "VALID", category: "COMPANY", aadhaar_linked: false, aadhaar_seeding_status: "NOT_APPLICABLE" }],
      ["ABCHK1234F", { category: "HUF" }],
      ["ABCFK1234F", { category: "FIRM" }],
      ["ABCAK1234F", { category: "AOP" }],
      ["ABCTK1234F", { category: "TRUST" }],
      ["ABCBK1234F", { category: "BOI" }],
      ["ABCLK1234F", { category: "LOCAL_AUTHORITY" }],
      ["ABCJK1234F", { category: "ARTIFICIAL_JURIDICAL_PERSON" }],
      ["ABCGK1234F", { category: "GOVERNMENT" }],
    ])("sandbox outcome for %s", async (pan, expected) => {
      const r = await post("/v1/identity/pan/verify", { pan, name: "Test Name" });
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject(expected);
    });

    it("answers source failures with 504 and 503 plus Retry-After", async () => {
      const t = await post("/v1/identity/pan/verify", { pan: "ABCPK9997F" });
      expect(t.status).toBe(504);
      expect(t.json.error.code).toBe("SOURCE_TIMEOUT");
      expect(Number(t.headers["retry-after"])).toBeGreaterThan(0);
      const u = await post("/v1/identity/pan/verify", { pan: "ABCPK9998F" });
      expect(u.status).toBe(503);
      expect(u.json.error.code).toBe("SOURCE_UNAVAILABLE");
      expect(Number(u.headers["retry-after"])).toBeGreaterThan(0);
    });

    it.each(["ABCDE1234F", "ABCPK0000F", "ABCPK123F", "1BCPK1234F", "ABCPK1234FF", "A".repeat(5000), "ABC PK1234F"])(
      "refuses %s with INVALID_PAN in the /v1 error envelope",
      async (pan) => {
        const r = await post("/v1/identity/pan/verify", { pan });
        expect(r.status).toBe(400);
        expect(Object.keys(r.json).sort()).toEqual(["error", "request_id", "status", "timestamp"]);
        expect(r.json.status).toBe("error");
        expect(r.json.error.code).toBe("INVALID_PAN");
        expect(r.json.request_id).toBe(r.headers["x-request-id"]);
        expect(r.json.timestamp).toMatch(ISO_MS);
      },
    );

    it("reports missing and wrongly typed fields as VALIDATION_ERROR with details", async () => {
      const missing = await post("/v1/identity/pan/verify", { name: "X" });
      expect(missing.status).toBe(400);
      expect(missing.json.error.code).toBe("VALIDATION_ERROR");
      expect(missing.json.error.details).toEqual([{ field: "pan", message: "pan is required" }]);
      const longName = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "N".repeat(101) });
      expect(longName.status).toBe(400);
      expect(longName.json.error.code).toBe("VALIDATION_ERROR");
      expect(longName.json.error.details[0].field).toBe("name");
      const typed = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: 42 });
      expect(typed.json.error.code).toBe("VALIDATION_ERROR");
      expect(typed.json.error.details[0].message).toBe("name must be a string");
    });
  });

  describe("EPFO verification", () => {
    it("answers a UAN with no timestamp in the envelope", async () => {
      const r = await post("/v1/employment/epfo/verify", { uan: "100200300400" });
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(["data", "status"]);
      const d = r.json.data;
      expect(d.uan).toBe("100200300400");
      expect(d.member_status).toBe("ACTIVE");
      expect(d.member_name).toBe(d.member_name.toUpperCase());
      expect(d.pf_number).toMatch(/^[A-Z]{2}\/[A-Z]{3}\/\d{7}\/\d{3}\/\d{7}$/);
      expect(d.last_contribution_month).toMatch(/^\d{4}-\d{2}$/);
      expect(d.date_of_exit).toBeNull();
      expect(d.employment_history.length).toBeGreaterThanOrEqual(1);
      expect(d.employment_history.length).toBeLessThanOrEqual(3);
      expect(d.employment_history[0].is_current).toBe(true);
    });

    it("answers a PF number in either form with that PF number in slash form", async () => {
      const a = await post("/v1/employment/epfo/verify", { pf_number: "MH/BAN/0000064/000/0000123" });
      const b = await post("/v1/employment/epfo/verify", { pf_number: "mhban00000640000000123" });
      expect(a.status).toBe(200);
      expect(a.json.data.pf_number).toBe("MH/BAN/0000064/000/0000123");
      expect(b.json.data).toEqual(a.json.data);
    });

    it.each([
      ["100200309991", 404, "UAN_NOT_FOUND"],
      ["100200309998", 503, "SOURCE_UNAVAILABLE"],
    ])("UAN %s → %i %s", async (uan, status, code) => {
      const r = await post("/v1/employment/epfo/verify", { uan });
      expect(r.status).toBe(status);
      expect(r.json.error.code).toBe(code);
    });

    it("reports EXITED and INACTIVE members", async () => {
      const exited = await post("/v1/employment/epfo/verify", { uan: "100200309992" });
      expect(exited.json.data.member_status).toBe("EXITED");
      expect(exited.json.data.date_of_exit).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const inactive = await post("/v1/employment/epfo/verify", { uan: "100200309993" });
      expect(inactive.json.data.member_status).toBe("INACTIVE");
    });

    it("needs exactly one of uan and pf_number, each well formed", async () => {
      const both = await post("/v1/employment/epfo/verify", { uan: "100200300400", pf_number: "MH/BAN/0000064/000/0000123" });
      expect(both.status).toBe(400);
      expect(both.json.error.code).toBe("VALIDATION_ERROR");
      const neither = await post("/v1/employment/epfo/verify", {});
      expect(neither.json.error.code).toBe("VALIDATION_ERROR");
      const badUan = await post("/v1/employment/epfo/verify", { uan: "12345" });
      expect(badUan.json.error.code).toBe("INVALID_UAN");
      const badPf = await post("/v1/employment/epfo/verify", { pf_number: "MH/BAN/64/000/123" });
      expect(badPf.json.error.code).toBe("INVALID_PF_NUMBER");
      const unknownPf = await post("/v1/employment/epfo/verify", { pf_number: "MH/BAN/0000064/000/0009991" });
      expect(unknownPf.status).toBe(404);
      expect(unknownPf.json.error.code).toBe("PF_NUMBER_NOT_FOUND");
    });
  });
});
