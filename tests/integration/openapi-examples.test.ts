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

  it("the reference lists the sandbox test values instead of pointing elsewhere", () => {
    expect(doc.info.description).not.toMatch(/README/);
    const pan = doc.paths["/v1/identity/pan/verify"].post.description as string;
    for (const serial of ["9991", "9992", "9993", "9994", "9997", "9998"]) expect(pan).toContain(`ABCPK${serial}F`);
    expect(doc.paths["/v1/employment/epfo/verify"].post.description).toContain("UAN_NOT_FOUND");
    expect(doc.paths["/api/checkout"].post.description).toContain("4000 0000 0000 0002");
  });
});
