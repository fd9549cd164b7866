import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";

/** The API reference's examples are answers of the sandbox: sent back to it, they come back the same. */
describe("OpenAPI examples", () => {
  let server: TestServer;
  let m: MerchantFixture;
  let doc: any;

  beforeAll(async () => {
    server = await startServer();
    m = await createMerchantViaCli(server.env);
    doc = (await request(server.url, "/api/openapi.json")).json;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const example = (path: string) => {
    const op = doc.paths[path].post;
    return { request: op.requestBody.content["application/json"].example, response: op.responses["200"].content["application/json"].example };
  };
  const call = (path: string, body: unknown) =>
    request(server.url, path, { method: "POST", body, headers: { Authorization: `Bearer ${m.sandbox.secretKey}` } });

  it("the PAN verify example is a matching pair: the documented name, a full match", async () => {
    const ex = example("/v1/identity/pan/verify");
    expect(Object.keys(ex.request).sort()).toEqual(["name", "pan"]);
    const r = await call("/v1/identity/pan/verify", ex.request);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual(ex.response.data);
    expect(r.json.data.name).toBe(ex.request.name.toUpperCase());
    expect(r.json.data.name_match_result).toBe("MATCH");
    expect(ex.response).toMatchObject({ status: "success", timestamp: expect.any(String) });
  });

  it("the EPFO verify example is what the sandbox answers", async () => {
    const ex = example("/v1/employment/epfo/verify");
    const r = await call("/v1/employment/epfo/verify", ex.request);
    expect(r.status).toBe(200);
    expect(r.json).toEqual(ex.response);
  });

  it("the KYC examples are what the sandbox answers, apart from ids and the balance", async () => {
    const kyc = (path: string, body: Record<string, unknown>) =>
      request(server.url, path, {
        method: "POST",
        body: { ...body, merchantId: m.merchantId },
        headers: { "x-api-key": m.sandbox.publicKey, "x-api-secret": m.sandbox.secretKey },
      });
    const volatile = (d: Record<string, unknown>) => {
      const { kycTransactionId: _t, walletBalance: _w, requestId: _r, verifiedAt: _v, ...rest } = d;
      return rest;
    };
    for (const path of ["/api/kyc/pan/verify", "/api/kyc/bank/verify"]) {
      const ex = example(path);
      const r = await kyc(path, ex.request);
      expect(r.status, r.text).toBe(200);
      expect(r.json.message).toBe(ex.response.message);
      expect(volatile(r.json.data)).toEqual(volatile(ex.response.data));
    }
    expect(example("/api/kyc/pan/verify").response.data.nameMatch.result).toBe("MATCH");
    const gen = example("/api/kyc/aadhaar/generate-otp");
    const sent = await kyc("/api/kyc/aadhaar/generate-otp", gen.request);
    expect(sent.status).toBe(200);
    const ver = example("/api/kyc/aadhaar/verify-otp");
    const verified = await kyc("/api/kyc/aadhaar/verify-otp", { ...ver.request, requestId: sent.json.data.requestId });
    expect(verified.status, verified.text).toBe(200);
    expect(volatile(verified.json.data)).toEqual(volatile(ver.response.data));
  });

  it("the reference lists the sandbox test values instead of pointing elsewhere", () => {
    expect(doc.info.description).not.toMatch(/README/);
    const pan = doc.paths["/v1/identity/pan/verify"].post.description as string;
    for (const serial of ["9991", "9992", "9993", "9994", "9997", "9998"]) expect(pan).toContain(`ABCPK${serial}F`);
    expect(doc.paths["/v1/employment/epfo/verify"].post.description).toContain("UAN_NOT_FOUND");
    expect(doc.paths["/api/checkout"].post.description).toContain("4000 0000 0000 0002");
  });

  it("the batch examples are what the sandbox answers, apart from ids and times", async () => {
    const op = doc.paths["/v1/identity/pan/batch"].post;
    const ex = { request: op.requestBody.content["application/json"].example, response: op.responses["202"].content["application/json"].example };
    const created = await call("/v1/identity/pan/batch", ex.request);
    expect(created.status).toBe(202);
    const { batch_id: _id, created_at: _at, ...summary } = created.json.data;
    const { batch_id: _eid, created_at: _eat, ...documented } = ex.response.data;
    expect(summary).toEqual(documented);
    const id = created.json.data.batch_id;
    const auth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    for (let i = 0; i < 200; i++) {
      if ((await request(server.url, `/v1/identity/pan/batch/${id}`, { headers: auth })).json.data.status === "COMPLETED") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const results = await request(server.url, `/v1/identity/pan/batch/${id}/results`, { headers: auth });
    const documentedResults = doc.paths["/v1/identity/pan/batch/{batch_id}/results"].get.responses["200"].content["application/json"].example;
    expect(results.json.data).toEqual(documentedResults.data);
    const status = (await request(server.url, `/v1/identity/pan/batch/${id}`, { headers: auth })).json.data;
    const documentedStatus = doc.paths["/v1/identity/pan/batch/{batch_id}"].get.responses["200"].content["application/json"].example.data;
    const volatile = ({ batch_id: _b, created_at: _c, started_at: _s, completed_at: _d, ...rest }: Record<string, unknown>) => rest;
    expect(volatile(status)).toEqual(volatile(documentedStatus));
  });
});
