import { beforeAll, describe, expect, it } from "vitest";
import { BATCH_CSV_MAX_BYTES } from "@/lib/batches-csv";
import { refundCreateInput } from "@/lib/schemas/refunds";
import { createBatchMetas } from "@/server/api/batches/create-batch.schema";
import { createRefundInput } from "@/server/api/refunds/create-refund.schema";
import { configFrom } from "@/server/config";
import { ERROR_CODES } from "@/server/errors";
import { UPLOAD_BODY_LIMIT } from "@/server/http/page-guard";
import { buildOpenApiDocument } from "@/server/openapi";
import { createCheckoutInput } from "@/server/services/payments/create-input";
import { settingsEnv } from "../helpers/settings-env";

// The figures below are the contract's (B1, B4, B5, B11), written out by hand: every rule that
// enforces one and every sentence that names one must say the same figure.

const MiB = 1024 * 1024;

describe("the API's figures, in the rules and in the words", () => {
  let doc: any;
  beforeAll(async () => {
    doc = JSON.parse(JSON.stringify(await buildOpenApiDocument("https://api.parakh.in")));
  });
  const op = (method: string, path: string) => doc.paths[path][method];
  const refundOp = () => op("post", "/api/payments/{paymentId}/refunds");

  it("refunds: 180 days after payment", () => {
    expect(ERROR_CODES.PAYMENT_NOT_REFUNDABLE.message).toBe("Only a successful payment can be refunded, within 180 days of payment.");
    expect(refundOp().description).toContain("within 180 days of payment");
  });

  it("payment amounts: 1.00 to 100000.00, with their codes", () => {
    const amount = (v: unknown) => createCheckoutInput.shape.amount.safeParse(v);
    const codeOf = (v: unknown) => {
      const r = amount(v);
      return r.success ? null : { code: (r.error.issues[0] as { params?: { code?: string } }).params?.code, message: r.error.issues[0]!.message };
    };
    expect(amount("100000.00").success).toBe(true);
    expect(amount(100_000).success).toBe(true);
    expect(amount("1.00").success).toBe(true);
    expect(codeOf("100000.01")).toEqual({ code: "AMOUNT_LIMIT_EXCEEDED", message: "must not exceed 100000.00" });
    expect(codeOf(100_001)).toEqual({ code: "AMOUNT_LIMIT_EXCEEDED", message: "must not exceed 100000.00" });
    expect(codeOf("0.99")).toEqual({ code: "INVALID_AMOUNT", message: "must be a number of at least 1.00 with at most two fraction digits" });
    expect(ERROR_CODES.AMOUNT_LIMIT_EXCEEDED.message).toBe("The amount must not exceed 100000.00.");
    expect(ERROR_CODES.INVALID_AMOUNT.message).toBe("The amount must be a number of at least 1.00 with at most two fraction digits.");
    const field = op("post", "/api/checkout").requestBody.content["application/json"].schema.properties.amount;
    expect(field.description).toContain("1.00 to 100000.00");
    expect(field.anyOf.find((s: { type: string }) => s.type === "number")).toMatchObject({ minimum: 1, maximum: 100000 });
  });

  it("batches: 10,000 items in at most 8 MiB, from the API and from the dashboard", () => {
    expect(ERROR_CODES.BATCH_TOO_LARGE.message).toBe("A batch holds at most 10,000 items.");
    for (const kind of ["PAN", "EPFO"] as const) {
      expect(createBatchMetas[kind].rest.bodyLimit).toBe(8 * MiB);
      const d = op("post", createBatchMetas[kind].openapi.path).description as string;
      expect(d).toContain("Queues up to 10,000 ");
      expect(d).toContain("Bodies up to 8 MiB;");
      const items = op("post", createBatchMetas[kind].openapi.path).requestBody.content["application/json"].schema.properties.items;
      expect(items.maxItems).toBe(10_000);
      expect(items.description).toMatch(/^Up to 10,000 items /);
    }
    expect(doc.tags.find((t: { name: string }) => t.name === "Identity").description).toContain("batches of up to 10,000 ");
    expect(UPLOAD_BODY_LIMIT).toBe(8 * MiB);
    expect(BATCH_CSV_MAX_BYTES).toBe(8 * MiB);
  });

  it("a job's and a batch chunk's lease default to 30 s; an item's transient errors are retried for at most 30 s", () => {
    const config = configFrom(settingsEnv("parakh-facts-"));
    expect(config.jobLeaseMs).toBe(30_000);
    expect(config.batchRetryBudgetMs).toBe(30_000);
    expect(() => configFrom({ ...settingsEnv("parakh-facts-"), BATCH_RETRY_BUDGET_MS: "30001" })).toThrow(/BATCH_RETRY_BUDGET_MS/);
  });

  it("a refund amount and reason follow one rule in the API and in the dashboard's form", () => {
    const api = (body: object) => createRefundInput.safeParse({ paymentId: "pay_1700000000000_abcdefgh", ...body }).success;
    const form = (body: object) => refundCreateInput.safeParse({ paymentId: "pay_1700000000000_abcdefgh", amount: "1.00", ...body }).success;
    const amounts: [string, boolean][] = [
      ["0.01", true],
      ["120", true],
      ["120.50", true],
      [" 99.9 ", true],
      ["0", false],
      ["0.00", false],
      ["-1", false],
      ["1.005", false],
      ["1e2", false],
      ["abc", false],
    ];
    for (const [amount, ok] of amounts) expect([amount, api({ amount }), form({ amount })]).toEqual([amount, ok, ok]);
    for (const [reason, ok] of [
      ["x".repeat(255), true],
      ["x".repeat(256), false],
    ] as const)
      expect([reason.length, api({ reason }), form({ reason })]).toEqual([reason.length, ok, ok]);
    const reason = refundOp().requestBody.content["application/json"].schema.properties.reason;
    expect(reason.description).toContain("At most 255 characters.");
    expect(reason.anyOf?.find((s: { type: string }) => s.type === "string") ?? reason).toMatchObject({ maxLength: 255 });
  });
});
