import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isValidPan } from "@/lib/pan";
import { REST_OPERATIONS } from "@/server/api/rest-router";
import { ERROR_CODES, type ErrorCode } from "@/server/errors";
import { buildOpenApiDocument } from "@/server/openapi";
import { createRefundInput } from "@/server/api/refunds/create-refund.schema";
import { createCheckoutInput } from "@/server/services/payments/create-input";

const ROOT = path.resolve(__dirname, "../..");

/** The document must be as strict as the server: what it calls valid, the server accepts. */
describe("the OpenAPI document", () => {
  let doc: any;
  beforeAll(async () => {
    doc = JSON.parse(JSON.stringify(await buildOpenApiDocument("https://api.parakh.in")));
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item as Record<string, any>).map(([method, op]) => ({ key: `${method.toUpperCase()} ${p}`, op })),
    );
  const body = (p: string) => doc.paths[p].post.requestBody.content["application/json"].schema;
  const param = (key: string, name: string) => {
    const [method, p] = key.split(" ");
    return doc.paths[p!][method!.toLowerCase()].parameters.find((x: { name: string }) => x.name === name);
  };
  const matches = (pattern: string, value: string) => new RegExp(pattern, "u").test(value);

  it("describes exactly the operations of the door's table, each once, with its auth scheme", () => {
    const documented = operations().map((o) => o.key);
    const served = REST_OPERATIONS.map((o) => `${o.meta.openapi.method} ${o.meta.openapi.path}`);
    expect(new Set(served).size).toBe(served.length);
    expect([...documented].sort()).toEqual([...served].sort());
    const scheme = { bearer: "BearerSecretKey", merchant: "MerchantId", kyc: "KycApiKey" } as const;
    for (const o of REST_OPERATIONS) {
      const op = doc.paths[o.meta.openapi.path][o.meta.openapi.method.toLowerCase()];
      expect(Object.keys(op.security[0]), `${o.meta.openapi.method} ${o.meta.openapi.path}`).toContain(scheme[o.meta.rest.auth]);
    }
  });

  it("lints clean with Redocly's recommended rules: 0 errors, 0 warnings", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-openapi-"));
    const file = path.join(dir, "openapi.json");
    fs.writeFileSync(file, JSON.stringify(doc));
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        path.join(ROOT, "node_modules/.bin/redocly"),
        ["lint", file, "--config", path.join(ROOT, "redocly.yaml"), "--format=json"],
        {
          cwd: ROOT,
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true" },
          maxBuffer: 32 * 1024 * 1024,
        },
        // Exit code 1 means errors: the report says which.
        (err, stdout) => (stdout ? resolve(stdout) : reject(err)),
      ),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    const report = JSON.parse(out);
    const problems = report.problems.map(
      (p: { ruleId: string; message: string; location: { pointer: string }[] }) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("lists on its front page every code an operation can answer, with its status and meaning", () => {
    const used = new Set<ErrorCode>(operations().flatMap(({ op }) => op["x-error-codes"] as ErrorCode[]));
    const listed = [...(doc.info.description as string).matchAll(/^\| (\d{3}) \| `(\w+)` \| (.+) \|$/gm)];
    expect(new Set(listed.map((m) => m[2]))).toEqual(used);
    for (const [, status, code, meaning] of listed)
      expect([Number(status), meaning]).toEqual([ERROR_CODES[code as ErrorCode].status, ERROR_CODES[code as ErrorCode].message]);
    for (const code of ["LOOKUP_NOT_SUPPORTED", "UPSTREAM_ERROR", "SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"] as const) expect(used).toContain(code);
  });

  it("EPFO verify takes exactly one of uan and pf_number", () => {
    const schema = body("/v1/employment/epfo/verify");
    expect(schema.oneOf).toEqual([{ required: ["uan"] }, { required: ["pf_number"] }]);
    expect(schema.required ?? []).toEqual([]);
    expect(Object.keys(schema.properties)).toEqual(["uan", "pf_number", "consent", "purpose"]);
  });

  it("gives every live verification and KYC call the optional consent and purpose (C6), and each its CONSENT_REQUIRED", () => {
    const paths = [
      "/v1/identity/pan/verify",
      "/v1/employment/epfo/verify",
      "/v1/identity/pan/batch",
      "/v1/employment/epfo/batch",
      "/api/kyc/aadhaar/generate-otp",
      "/api/kyc/aadhaar/verify-otp",
      "/api/kyc/pan/verify",
      "/api/kyc/bank/verify",
    ];
    for (const p of paths) {
      const schema = body(p);
      expect(schema.required ?? [], p).not.toContain("consent");
      expect(schema.required ?? [], p).not.toContain("purpose");
      // nullish, like the other optional fields: null is the same as absent.
      expect(schema.properties.consent.type, p).toEqual(["boolean", "null"]);
      expect(schema.properties.purpose.anyOf, p).toEqual([{ type: "string", minLength: 20, maxLength: 200 }, { type: "null" }]);
      for (const field of ["consent", "purpose"]) expect(schema.properties[field].description, `${p} ${field}`).toMatch(/Sandbox does not need it/);
      expect(doc.paths[p].post["x-error-codes"], p).toContain("CONSENT_REQUIRED");
    }
    // A batch's consent is the batch's: items carry none.
    expect(Object.keys(body("/v1/identity/pan/batch").properties.items.items.properties)).toEqual(["pan", "name", "reference_id"]);
    // Payments take no consent.
    expect(body("/api/checkout").properties.consent).toBeUndefined();
  });

  it("batch results take limit as an integer from 1 to 1000", () => {
    for (const key of ["GET /v1/identity/pan/batch/{batch_id}/results", "GET /v1/employment/epfo/batch/{batch_id}/results"]) {
      const limit = param(key, "limit");
      expect(limit.required ?? false).toBe(false);
      expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 });
      expect(limit.schema.pattern).toBeUndefined();
      expect(limit.schema.description).toMatch(/1–1000/);
    }
  });

  it("batch results take an optional status filter of the three item states, as the items' own status", () => {
    for (const key of ["GET /v1/identity/pan/batch/{batch_id}/results", "GET /v1/employment/epfo/batch/{batch_id}/results"]) {
      const status = param(key, "status");
      expect(status.required ?? false).toBe(false);
      expect([...status.schema.enum].sort()).toEqual(["FAILED", "PENDING", "SUCCEEDED"]);
      expect(status.schema.description ?? status.description).toMatch(/FAILED/);
    }
  });

  it("batch items have their item schema and at most 10,000 of them", () => {
    const pan = body("/v1/identity/pan/batch").properties.items;
    expect(pan).toMatchObject({ type: "array", minItems: 1, maxItems: 10_000 });
    expect(pan.items).toMatchObject({ type: "object", required: ["pan"] });
    expect(Object.keys(pan.items.properties).sort()).toEqual(["name", "pan", "reference_id"]);
    expect(pan.items.properties.pan.pattern).toBe(body("/v1/identity/pan/verify").properties.pan.pattern);
    expect(pan.items.properties.reference_id.anyOf).toContainEqual({ type: "string", maxLength: 100 });

    const epfo = body("/v1/employment/epfo/batch").properties.items;
    expect(epfo).toMatchObject({ type: "array", minItems: 1, maxItems: 10_000 });
    expect(Object.keys(epfo.items.properties).sort()).toEqual(["pf_number", "reference_id", "uan"]);
    expect(epfo.items.oneOf).toEqual([{ required: ["uan"] }, { required: ["pf_number"] }]);
    expect(epfo.items.properties.uan).toEqual(body("/v1/employment/epfo/verify").properties.uan);
  });

  it("Idempotency-Key on every POST is 1 to 255 characters", () => {
    const posts = operations().filter((o) => o.key.startsWith("POST "));
    expect(posts.length).toBeGreaterThan(10);
    for (const { key } of posts) expect(param(key, "Idempotency-Key").schema, key).toEqual({ type: "string", minLength: 1, maxLength: 255 });
  });

  it("the PAN pattern is exactly what the server accepts: no serial 0000", () => {
    const patterns = [body("/v1/identity/pan/verify"), body("/api/kyc/pan/verify")].map((s) => s.properties.pan.pattern as string);
    for (const pattern of patterns) {
      for (const pan of ["ABCPK1234F", "ABCPK0000F", "ABCPK0001F", "ABCPK1000F", "ABCXK1234F", "ABCPK123F", "AAAAA00000", "ZZZGZ9999Z"]) {
        expect(matches(pattern, pan), `${pattern} on ${pan}`).toBe(isValidPan(pan));
      }
    }
  });

  it("ids in paths have no maxLength, and an operation with one documents its not-found code and NOT_FOUND", () => {
    const lookups: Record<string, [string, string]> = {
      "GET /v1/identity/pan/batch/{batch_id}": ["batch_id", "BATCH_NOT_FOUND"],
      "GET /v1/identity/pan/batch/{batch_id}/results": ["batch_id", "BATCH_NOT_FOUND"],
      "GET /v1/employment/epfo/batch/{batch_id}": ["batch_id", "BATCH_NOT_FOUND"],
      "GET /v1/employment/epfo/batch/{batch_id}/results": ["batch_id", "BATCH_NOT_FOUND"],
      "GET /api/payments/{paymentId}/status": ["paymentId", "PAYMENT_NOT_FOUND"],
      "GET /api/payments/{paymentId}/refunds": ["paymentId", "PAYMENT_NOT_FOUND"],
      "POST /api/payments/{paymentId}/refunds": ["paymentId", "PAYMENT_NOT_FOUND"],
      "GET /api/refunds/{refundId}": ["refundId", "REFUND_NOT_FOUND"],
      "POST /api/sandbox/payments/{paymentId}/simulate": ["paymentId", "PAYMENT_NOT_FOUND"],
    };
    expect(
      operations()
        .filter((o) => o.key.includes("{"))
        .map((o) => o.key)
        .sort(),
    ).toEqual(Object.keys(lookups).sort());
    for (const [key, [name, code]] of Object.entries(lookups)) {
      const p = param(key, name);
      expect(p, key).toMatchObject({ in: "path", required: true, schema: { type: "string", minLength: 1 } });
      expect(p.schema.maxLength, key).toBeUndefined();
      const [method, route] = key.split(" ");
      expect(doc.paths[route!][method!.toLowerCase()].responses["404"]["x-error-codes"], key).toEqual(expect.arrayContaining([code, "NOT_FOUND"]));
    }
  });

  it("amount strings: the documented pattern and bounds are exactly what the server takes, for payments and refunds", () => {
    const checkout = body("/api/checkout").properties.amount;
    const refund = body("/api/payments/{paymentId}/refunds").properties.amount;
    expect(checkout.anyOf).toContainEqual(expect.objectContaining({ type: "number", minimum: 1, maximum: 100_000 }));
    expect(refund.anyOf).toContainEqual(expect.objectContaining({ type: "number", minimum: 0.01 }));
    const pattern = (s: any) => s.anyOf.find((x: { type: string }) => x.type === "string").pattern as string;
    // Written by hand: what a merchant would send, and what the server must refuse.
    const checkoutCases: [string, boolean][] = [
      ["1", true],
      ["1.00", true],
      ["499", true],
      ["499.5", true],
      ["499.50", true],
      [" 499.00 ", true],
      ["99999.99", true],
      ["100000", true],
      ["100000.0", true],
      ["100000.00", true],
      ["100000.01", false],
      ["100001", false],
      ["0.99", false],
      ["0", false],
      ["01", false],
      ["1.", false],
      [".5", false],
      ["1.005", false],
      ["-1", false],
      ["1e3", false],
      ["+5", false],
      ["1,000", false],
      ["", false],
      ["१२", false],
    ];
    const refundCases: [string, boolean][] = [
      ["0.01", true],
      ["0.1", true],
      ["0.10", true],
      ["1", true],
      ["250000", true],
      ["\t5\n", true],
      ["0", false],
      ["0.0", false],
      ["0.00", false],
      ["00.5", false],
      ["0.001", false],
      ["-0.01", false],
      ["", false],
    ];
    const serverCheckout = createCheckoutInput.shape.amount;
    const serverRefund = createRefundInput.shape.amount;
    for (const [text, ok] of checkoutCases) {
      expect(matches(pattern(checkout), text), `checkout pattern on ${JSON.stringify(text)}`).toBe(ok);
      expect(serverCheckout.safeParse(text).success, `server on ${JSON.stringify(text)}`).toBe(ok);
    }
    for (const [text, ok] of refundCases) {
      expect(matches(pattern(refund), text), `refund pattern on ${JSON.stringify(text)}`).toBe(ok);
      expect(serverRefund.safeParse(text).success, `server on ${JSON.stringify(text)}`).toBe(ok);
    }
    // And on 20,000 random strings of the characters that matter: the pattern and the server agree.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = "0123456789001. -e";
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 9) }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      expect(matches(pattern(checkout), text), `checkout on ${JSON.stringify(text)}`).toBe(serverCheckout.safeParse(text).success);
      expect(matches(pattern(refund), text), `refund on ${JSON.stringify(text)}`).toBe(serverRefund.safeParse(text).success);
    }
  });

  it("URLs and dates say their format", () => {
    const redirect = body("/api/checkout").properties.redirectUrl.anyOf[0];
    expect(redirect).toMatchObject({ type: "string", format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://" });
    expect(body("/v1/identity/pan/batch").properties.webhook_url.format).toBe("uri");
    expect(body("/api/kyc/pan/verify").properties.dob.anyOf[0]).toMatchObject({ format: "date" });
  });

  it("keeps only the components it uses", () => {
    const text = JSON.stringify({ paths: doc.paths, webhooks: doc.webhooks });
    for (const name of Object.keys(doc.components.schemas)) expect(text, name).toContain(`"#/components/schemas/${name}"`);
  });

  it("publishes every webhook event of the contract (B4, B7, B11) under webhooks, each body a named schema of the contract's shape", () => {
    // The contract's list, by hand, and the dashboard's test event.
    const types = [
      "payment.success",
      "payment.failed",
      "payment.expired",
      "payment.cancelled",
      "pan.batch.completed",
      "epfo.batch.completed",
      "wallet.low_balance",
      "refund.processed",
      "refund.failed",
      "webhook.test",
    ];
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.webhooks).sort()).toEqual([...types].sort());
    const schema = (name: string) => doc.components.schemas[name];
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    for (const type of types) {
      const post = doc.webhooks[type].post;
      expect(post.requestBody.content["application/json"].schema, type).toEqual(ref(`WebhookEvent.${type}`));
      expect(post.parameters.map((p: { name: string }) => p.name).sort(), type).toEqual([
        "X-Webhook-Event",
        "X-Webhook-Id",
        "X-Webhook-Signature",
        "X-Webhook-Timestamp",
      ]);
      const body = schema(`WebhookEvent.${type}`);
      // Body: {id:"evt_…", type, created_at, mode, data} and nothing else.
      expect([...body.required].sort(), type).toEqual(["created_at", "data", "id", "mode", "type"]);
      expect(body.additionalProperties, type).toBe(false);
      expect(body.properties.type, type).toMatchObject({ const: type });
      expect(body.properties.mode.enum, type).toEqual(["sandbox", "live"]);
      expect(matches(body.properties.id.pattern, "evt_Jd8s2LqP0xZk3Vb9TmW4rY7n")).toBe(true);
    }
    const data = (type: string) => schema(`WebhookEvent.${type}`).properties.data;
    for (const type of ["payment.success", "payment.failed", "payment.expired", "payment.cancelled"]) {
      expect(data(type).required, type).toEqual(["payment"]);
      expect(data(type).properties.payment.$ref, type).toBe("#/components/schemas/PaymentStatus");
    }
    for (const type of ["refund.processed", "refund.failed"]) {
      expect([...data(type).required].sort(), type).toEqual(["payment", "refund"]);
      expect(data(type).properties.refund.$ref).toBe("#/components/schemas/Refund");
      expect(data(type).properties.payment.$ref).toBe("#/components/schemas/PaymentStatus");
    }
    // The GET status object with its final counts, plus results_url.
    const status = ["batch_id", "status", "total", "processed", "succeeded", "failed", "created_at", "started_at", "completed_at"];
    for (const type of ["pan.batch.completed", "epfo.batch.completed"]) {
      expect(data(type).required, type).toEqual(expect.arrayContaining([...status, "results_url"]));
      expect(data(type).properties.results_url).toMatchObject({ type: "string", format: "uri" });
    }
    expect(data("wallet.low_balance").properties.wallet.required).toEqual(expect.arrayContaining(["balance", "threshold", "currency"]));
    // The objects the events carry are the operations' own.
    expect(doc.paths["/api/payments/{paymentId}/status"].get.responses["200"].content["application/json"].schema.properties.data).toEqual(ref("PaymentStatus"));
  });
});
