import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { ERROR_CODES } from "@/server/errors";
import { request, type HttpResult } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { operationsOf, requestArb, type FuzzRequest, type JsonSchema, type Operation } from "./openapi-requests";

/**
 * Requests generated from the API document, hostile values included, sent by merchant A for
 * FUZZ_SECONDS per database, while merchant B runs a fixed script. Every answer must be one the
 * document describes for its operation (status, envelope, a code it lists, X-Request-Id), never a
 * 500 or any 5xx but a sandbox source's documented 503/504; B's answers must be the ones it gets
 * alone, and each wallet must move only with its own charged answers. `npm run fuzz` runs longer;
 * FUZZ_SEED replays a run.
 */
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 300);
const SEED =
  process.env.FUZZ_SEED && process.env.FUZZ_SEED !== "random"
    ? Number(process.env.FUZZ_SEED)
    : process.env.FUZZ_SEED === "random"
      ? Date.now() % 2 ** 31
      : 20261207;
/** The only 5xx a sandbox request may get: its source fixtures' documented failures (B8). */
const SOURCE_FAILURES = new Set(["SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"]);

/** What of an answer must not change when another merchant fuzzes beside it: ids, times and balances aside. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (/id$|Id$|_id$|At$|_at$|^timestamp$|^walletBalance$|^checkoutUrl$|^_token$|^expiresAt$|^merchantOrderId$|^requestId$/.test(k)) continue;
      out[k] = stable(v);
    }
    return out;
  }
  return value;
}

describe.each(DB_TARGETS)("the API under generated requests on %s", (target) => {
  let env: Started;
  let a: MerchantFixture;
  let b: MerchantFixture;
  let db: Db;
  let doc: JsonSchema;
  let operations: Operation[];
  const validators = new Map<string, ValidateFunction>();
  /** Ids merchant A owns, by path parameter name: lookups then find something. */
  const owned: Record<string, string[]> = { paymentId: [], refundId: [], batch_id: [] };

  const headersFor = (who: MerchantFixture, op: Operation): Record<string, string> => {
    if (op.template.startsWith("/v1")) return { Authorization: `Bearer ${who.sandbox.secretKey}` };
    if (op.template.startsWith("/api/kyc")) return { "x-api-key": who.sandbox.publicKey, "x-api-secret": who.sandbox.secretKey };
    return { "x-merchant-id": who.merchantId, "x-api-key": who.sandbox.publicKey, "x-secret-key": who.sandbox.secretKey };
  };

  function send(who: MerchantFixture, req: FuzzRequest): Promise<HttpResult> {
    const headers = headersFor(who, req.operation);
    if (req.contentType) headers["Content-Type"] = req.contentType;
    if (req.idempotencyKey !== undefined) headers["Idempotency-Key"] = req.idempotencyKey;
    // KYC bodies name their merchant; a body that is an object gets A's id where it has the field.
    let body = req.body;
    if (body && req.operation.template.startsWith("/api/kyc")) body = body.replace(/"merchantId":"mer_[A-Za-z0-9]+"/, `"merchantId":"${who.merchantId}"`);
    return request(env.server.url, req.path, { method: req.method, headers, rawBody: body });
  }

  function validatorFor(schema: JsonSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    let v = validators.get(key);
    if (!v) {
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema({ $id: "doc", components: doc.components });
      v = ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"doc#/components/')));
      validators.set(key, v);
    }
    return v;
  }

  /** Why the answer is not one the document describes for the request's operation, or null. */
  function problemWith(req: FuzzRequest, r: HttpResult): string | null {
    const response = req.operation.op.responses[String(r.status)];
    if (!response) return `status ${r.status} is not documented for ${req.method} ${req.operation.template}`;
    if (r.json === undefined) return "the body is not JSON";
    const schema = response.content?.["application/json"]?.schema;
    if (schema) {
      const validate = validatorFor(schema);
      if (!validate(r.json)) return `the body does not match the documented schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`;
    }
    const requestId = r.headers["x-request-id"];
    if (typeof requestId !== "string") return "no X-Request-Id";
    if (r.status >= 400) {
      const code = r.json.error?.code as string;
      if (!(code in ERROR_CODES)) return `unregistered code ${code}`;
      if (!(response["x-error-codes"] as string[]).includes(code)) return `${code} is not listed for ${r.status}`;
      if ((r.json.request_id ?? r.json.requestId) !== requestId) return "the body's request id is not X-Request-Id";
      if (r.status >= 500 && !SOURCE_FAILURES.has(code)) return `a ${r.status} ${code}`;
    }
    return null;
  }

  function remember(r: HttpResult) {
    const d = r.json?.data;
    if (!d || typeof d !== "object") return;
    for (const [field, param] of [
      ["paymentId", "paymentId"],
      ["refundId", "refundId"],
      ["batch_id", "batch_id"],
    ] as const) {
      const id = d[field] ?? d.payment?.[field];
      if (typeof id === "string" && !owned[param]!.includes(id)) owned[param]!.push(id);
    }
  }

  async function wallet(who: MerchantFixture) {
    const w = await db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId: who.merchantId, mode: "sandbox" } } });
    const entries = await db.ledgerEntry.findMany({ where: { merchantId: who.merchantId, mode: "sandbox" }, select: { amountPaise: true } });
    return { balance: w.balancePaise, available: w.availablePaise, ledger: entries.reduce((s, e) => s + e.amountPaise, 0) };
  }

  /** B's script: one call of each family, the same inputs every round. */
  function scriptFor(round: number): { name: string; call: () => Promise<HttpResult> }[] {
    const op = (template: string, method: "get" | "post" = "post") => operations.find((o) => o.template === template && o.method === method)!;
    const post = (template: string, body: unknown) =>
      send(b, { operation: op(template), method: "POST", path: template, body: JSON.stringify(body), contentType: "application/json" });
    return [
      { name: "PAN verify", call: () => post("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "Arjun Kapoor" }) },
      { name: "EPFO verify", call: () => post("/v1/employment/epfo/verify", { uan: "100200300400" }) },
      { name: "PAN KYC", call: () => post("/api/kyc/pan/verify", { merchantId: b.merchantId, pan: "ABCPK1234F", name: "Arjun Kapoor" }) },
      { name: "bank KYC", call: () => post("/api/kyc/bank/verify", { merchantId: b.merchantId, accountNumber: "50100123456789", ifsc: "HDFC0001234" }) },
      {
        name: "checkout",
        call: () => post("/api/checkout", { orderId: `ORDER_b_${target}_${round}_${Date.now()}`, amount: "499.00", description: "B's order" }),
      },
      { name: "batch", call: () => post("/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F" }, { pan: "bad" }] }) },
    ];
  }

  beforeAll(async () => {
    env = await startFor(target);
    a = await createMerchantViaCli(env.server.env, "Fuzzing Merchant");
    b = await createMerchantViaCli(env.server.env, "Bystander Merchant");
    for (const m of [a, b]) expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
    doc = (await request(env.server.url, "/api/openapi.json")).json;
    operations = operationsOf(doc);
  }, 180_000);
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it(
    `answers every generated request as documented, and merchant B as if alone (${SECONDS} s, seed ${SEED})`,
    { timeout: (SECONDS + 120) * 1000 },
    async () => {
      // B alone first: the answers every later round must repeat.
      const baseline = new Map<string, unknown>();
      for (const step of scriptFor(0)) {
        const r = await step.call();
        expect(r.status, `${step.name} alone: ${r.text}`).toBeLessThan(300);
        baseline.set(step.name, { status: r.status, body: stable(r.json) });
      }
      const bStart = await wallet(b);
      let bCharged = 0;
      const bDiffs: string[] = [];
      let fuzzing = true;
      const bystander = (async () => {
        for (let round = 1; fuzzing; round++) {
          for (const step of scriptFor(round)) {
            const r = await step.call();
            const seen = { status: r.status, body: stable(r.json) };
            if (JSON.stringify(seen) !== JSON.stringify(baseline.get(step.name))) bDiffs.push(`${step.name}: ${r.text.slice(0, 500)}`);
            const fee = r.status === 200 ? r.json?.data?.charge?.amount : undefined;
            if (fee) bCharged += Math.round(Number(fee) * 100);
          }
          // A pause between rounds, so most of the server's time goes to the fuzzing.
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      })();

      const failures: string[] = [];
      let sent = 0;
      const byStatus = new Map<number, number>();
      const arb = fc.oneof(...operations.map((o) => requestArb(doc, o, () => owned)));
      try {
        await fc.check(
          fc.asyncProperty(arb, async (req) => {
            const r = await send(a, req);
            sent++;
            byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
            remember(r);
            const problem = problemWith(req, r);
            if (problem) {
              failures.push(`${req.method} ${req.path.slice(0, 300)} ${req.body?.slice(0, 300) ?? ""}\n  → ${r.status} ${r.text.slice(0, 400)}\n  ${problem}`);
              return false;
            }
            return true;
          }),
          { seed: SEED, numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false, endOnFailure: true },
        );
      } finally {
        fuzzing = false;
        await bystander;
      }
      console.info(`[fuzz ${target}] seed ${SEED}: ${sent} requests in ${SECONDS} s, by status ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}`);
      expect(failures.slice(0, 3)).toEqual([]);
      expect(sent).toBeGreaterThan(SECONDS * 5);
      // Requests got past validation: many answered 200, some as each kind of refusal.
      expect(byStatus.get(200) ?? 0).toBeGreaterThan(sent / 20);

      expect(bDiffs.slice(0, 3)).toEqual([]);
      const bEnd = await wallet(b);
      expect(bEnd.balance).toBe(bStart.balance - bCharged);
      expect(bEnd.ledger).toBe(bEnd.balance);
      const aEnd = await wallet(a);
      expect(aEnd.ledger).toBe(aEnd.balance);
      expect(aEnd.available).toBe(aEnd.balance);
    },
  );
});
