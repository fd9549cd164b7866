import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";
import { ERROR_CODES, type ErrorCode } from "@/server/errors";
import { apiErrorSchema, v1ErrorSchema } from "@/server/rest/envelope";
import { REST_OPERATIONS, restRouter } from "@/server/api/rest-router";
import type { RestMeta } from "@/server/rest/meta";
import { DELIVERY_TIMEOUT_MS, RETRY_DELAYS_MS } from "@/server/services/webhooks/deliver";
import { SANDBOX_TABLES, sandboxTableMarkdown } from "@/server/providers/sandbox-catalog";
import { operationExamples, type OperationExample } from "@/server/rest/openapi-examples";
import { z } from "zod";
import { BATCH_MAX_ITEMS, countText } from "@/lib/limits";
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENT_SCHEMAS, type WebhookEventName } from "@/lib/schemas/webhook-events";

/** Codes the door itself can answer for any operation, by auth scheme. */
const COMMON: Record<RestMeta["auth"], ErrorCode[]> = {
  bearer: ["UNAUTHORIZED", "MERCHANT_SUSPENDED", "LIVE_MODE_NOT_ENABLED", "IP_NOT_WHITELISTED"],
  merchant: ["UNAUTHORIZED", "MERCHANT_SUSPENDED", "LIVE_MODE_NOT_ENABLED", "IP_NOT_WHITELISTED"],
  kyc: ["UNAUTHORIZED", "BROWSER_REQUEST_FORBIDDEN", "MERCHANT_MISMATCH", "MERCHANT_SUSPENDED", "LIVE_MODE_NOT_ENABLED", "IP_NOT_WHITELISTED"],
};
const COMMON_ALL: ErrorCode[] = ["METHOD_NOT_ALLOWED", "REQUEST_HEADERS_TOO_LARGE", "RATE_LIMITED", "INTERNAL_ERROR"];
const COMMON_POST: ErrorCode[] = [
  "INVALID_JSON",
  "VALIDATION_ERROR",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "IDEMPOTENCY_KEY_IN_USE",
  "IDEMPOTENCY_KEY_MISMATCH",
];

const SECURITY: Record<RestMeta["auth"], Record<string, string[]>[]> = {
  bearer: [{ BearerSecretKey: [] }],
  merchant: [{ MerchantId: [], MerchantPublicKey: [], MerchantSecretKey: [] }],
  kyc: [{ KycApiKey: [], KycApiSecret: [] }],
};

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  402: "Payment required",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "Unprocessable",
  429: "Too many requests",
  431: "Request headers too large",
  500: "Internal error",
  502: "Bad gateway",
  503: "Unavailable",
  504: "Timeout",
};

const ERROR_SCHEMA_NAMES = { v1: "V1Error", api: "ApiError" } as const;

/** The operations' tags, declared with what each group does (in the order the reference shows them). */
const TAGS = [
  { name: "Identity", description: `PAN verification, single and in batches of up to ${countText(BATCH_MAX_ITEMS)} (results by webhook).` },
  { name: "Employment", description: "EPFO member accounts by UAN or PF number, single and in batches." },
  { name: "Payments", description: "Hosted checkout: create a payment, verify its signed redirect, read its status." },
  { name: "Refunds", description: "Full and partial refunds of successful payments." },
  { name: "Sandbox", description: "Sandbox keys only: move a test payment as a customer would." },
  { name: "KYC", description: "Aadhaar OTP, PAN and bank-account KYC, each charged once from the prepaid wallet." },
  {
    name: "Webhooks",
    description:
      "Events Parakh POSTs to your registered endpoints (and to a batch's webhook_url): signed, retried until a 2xx answers, at least once and unordered, so dedupe on the event id.",
  },
];

/** Codes whose answers carry Retry-After (seconds to wait before trying again). */
const RETRY_AFTER_CODES = new Set<ErrorCode>([
  "RATE_LIMITED",
  "OTP_RESEND_TOO_SOON",
  "OTP_GENERATION_LIMIT",
  "OTP_VERIFICATION_IN_PROGRESS",
  "SERVICE_UNAVAILABLE",
  "SOURCE_UNAVAILABLE",
  "SOURCE_TIMEOUT",
]);

type HeaderObject = Extract<NonNullable<NonNullable<OpenAPIObject["components"]>["headers"]>[string], { schema?: unknown }>;

/** Response headers, declared once and referenced by every response that carries them. */
const HEADERS = {
  "X-Request-Id": {
    description: "The request's id (`req_…`, or yours when you sent a sane `X-Request-Id`); the same id is in the audit log.",
    schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
  },
  "Retry-After": {
    description: `Seconds to wait before trying again; sent with ${[...RETRY_AFTER_CODES].map((c) => `\`${c}\``).join(", ")}.`,
    schema: { type: "integer", minimum: 1 },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer of an earlier request with the same `Idempotency-Key` and body.",
    schema: { type: "string", enum: ["true"] },
  },
  Allow: { description: "The methods this path answers (on 405).", schema: { type: "string" } },
} satisfies Record<string, HeaderObject>;
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The error envelopes as named components, so every error response is a resolvable $ref. */
function errorComponents() {
  const json = (schema: z.ZodType) => {
    const {
      $schema: _drop,
      id: _id,
      definitions: _defs,
      ...rest
    } = z.toJSONSchema(schema, { target: "openapi-3.0", io: "output", reused: "inline" }) as Record<string, unknown>;
    return rest;
  };
  return { [ERROR_SCHEMA_NAMES.v1]: json(v1ErrorSchema), [ERROR_SCHEMA_NAMES.api]: json(apiErrorSchema) };
}

const DESCRIPTION = [
  "PAN and EPFO verification, hosted payment checkout and KYC. Every response carries `X-Request-Id`.",
  "",
  "Sandbox keys (`sk_test_…`, `pk_test_…`) answer from deterministic fixtures: the same input always gives the same answer, and these inputs give every outcome. The examples in this reference are answers of the sandbox itself.",
  "",
  ...SANDBOX_TABLES.flatMap((t) => [sandboxTableMarkdown(t), ""]),
].join("\n");

/**
 * The OpenAPI document, generated from the same zod schemas that validate requests. The generator's
 * generic error responses are replaced by the API's envelopes with each operation's codes, and
 * operations get examples computed by the sandbox and their sandbox test values.
 */
export async function buildOpenApiDocument(baseUrl: string): Promise<OpenAPIObject> {
  const examples = await operationExamples();
  const doc = generateOpenApiDocument(restRouter, {
    title: "Parakh API",
    version: "1.0.0",
    description: DESCRIPTION,
    baseUrl,
    securitySchemes: {
      BearerSecretKey: { type: "http", scheme: "bearer", description: "Your secret key: `sk_test_…` (sandbox) or `sk_live_…` (live)." },
      MerchantId: { type: "apiKey", in: "header", name: "x-merchant-id" },
      MerchantPublicKey: { type: "apiKey", in: "header", name: "x-api-key", description: "Public key `pk_…`." },
      MerchantSecretKey: { type: "apiKey", in: "header", name: "x-secret-key", description: "Secret key `sk_…` of the same pair." },
      KycApiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "Public key `pk_…`." },
      KycApiSecret: { type: "apiKey", in: "header", name: "x-api-secret", description: "Secret key `sk_…`." },
    },
  });

  // The generator's own error schemas: every error response is replaced by the envelopes below.
  const generated = Object.entries(doc.components?.schemas ?? {}).filter(([name]) => !name.startsWith("error."));
  doc.components = { ...doc.components, schemas: { ...Object.fromEntries(generated), ...errorComponents() }, headers: structuredClone(HEADERS) };
  const tagged = new Set(REST_OPERATIONS.flatMap(({ meta }) => meta.openapi.tags ?? []));
  doc.webhooks = webhooks(doc) as OpenAPIObject["webhooks"];
  doc.tags = TAGS.filter((t) => tagged.has(t.name) || (t.name === "Webhooks" && doc.webhooks));
  const byPath = new Map<string, RestMeta>(REST_OPERATIONS.map(({ meta }) => [`${meta.openapi.method} ${meta.openapi.path}`, meta.rest]));

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const op = (item as Record<string, any>)[method];
      const rest = op && byPath.get(`${method.toUpperCase()} ${path}`);
      if (rest) describeOperation(op, method, path, rest, examples[`${method.toUpperCase()} ${path}`]);
    }
  }
  doc.info.description = [doc.info.description, errorCodesMarkdown(doc)].filter(Boolean).join("\n\n");
  return doc;
}

const WEBHOOK_HEADERS = [
  { name: "X-Webhook-Id", description: "The event's id (`evt_…`), as in the body's `id`.", schema: { type: "string", pattern: "^evt_[A-Za-z0-9]+$" } },
  { name: "X-Webhook-Event", description: "The event's type, as in the body's `type`.", schema: { type: "string" } },
  { name: "X-Webhook-Timestamp", description: "Unix seconds when this attempt was signed.", schema: { type: "string", pattern: "^[0-9]+$" } },
  {
    name: "X-Webhook-Signature",
    description:
      '`t=<X-Webhook-Timestamp>,v1=<hex HMAC-SHA256(signing secret, t + "." + raw body)>`; during a secret rotation a second `v1=` signs with the old secret. Compare in constant time and refuse old timestamps.',
    schema: { type: "string", pattern: "^t=[0-9]+(,v1=[0-9a-f]{64})+$" },
  },
].map((h) => ({ ...h, in: "header", required: true }));

/**
 * The `webhooks` section (OpenAPI 3.1): one POST per event type, whose body is the event's schema
 * (the one the emitter builds every delivery through), named `WebhookEvent.<type>` in the components.
 */
function webhooks(doc: OpenAPIObject): Record<string, unknown> {
  const schemas = (doc.components!.schemas ??= {}) as Record<string, unknown>;
  const section: Record<string, unknown> = {};
  for (const type of WEBHOOK_EVENT_NAMES) {
    const { schema, components } = createSchema(WEBHOOK_EVENT_SCHEMAS[type], { io: "output", openapiVersion: doc.openapi as "3.1.0" });
    for (const [name, component] of Object.entries(components ?? {})) {
      // The API's objects (PaymentStatus, Refund, BatchStatus) are already there from the operations: they must be the same object.
      if (schemas[name] !== undefined && JSON.stringify(schemas[name]) !== JSON.stringify(component)) throw new Error(`Two different schemas named ${name}`);
      schemas[name] = component;
    }
    section[type] = { post: webhookOperation(type, schema) };
  }
  return section;
}

/** 1 m, 5 m, … 6 h and 6 h: the retry schedule as the reference states it. */
function retryText() {
  const steps = RETRY_DELAYS_MS.map((ms) => (ms < 3_600_000 ? `${ms / 60_000} m` : `${ms / 3_600_000} h`));
  return `${steps.slice(0, -1).join(", ")} and ${steps.at(-1)}`;
}

function webhookOperation(type: WebhookEventName, schema: unknown) {
  const meta = WEBHOOK_EVENT_SCHEMAS[type].meta() as { title: string; description: string };
  return {
    operationId: `webhook.${type}`,
    tags: ["Webhooks"],
    summary: meta.title,
    description: `${meta.description} Sent with type \`${type}\`.`,
    security: [],
    parameters: WEBHOOK_HEADERS,
    requestBody: { required: true, content: { "application/json": { schema } } },
    responses: {
      "200": { description: `Any 2xx answer within ${DELIVERY_TIMEOUT_MS / 1000} s marks the delivery delivered.` },
      "400": {
        description: `Any other answer, a redirect or a timeout is a failed attempt: retried after ${retryText()}, then the delivery is marked failed.`,
      },
    },
  };
}

/** Every code some operation can answer, with its HTTP status and what it means, for the reference's front page. */
function errorCodesMarkdown(doc: OpenAPIObject): string {
  const used = new Set<ErrorCode>();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, { "x-error-codes"?: ErrorCode[] }>)) for (const code of op["x-error-codes"] ?? []) used.add(code);
  }
  const rows = [...used]
    .sort((a, b) => ERROR_CODES[a].status - ERROR_CODES[b].status || a.localeCompare(b))
    .map((code) => `| ${ERROR_CODES[code].status} | \`${code}\` | ${ERROR_CODES[code].message} |`);
  return [
    "**Error codes.** Each operation lists the codes it can answer; this is what each one means. Live calls reach real sources: when a source fails the answer is `503 SOURCE_UNAVAILABLE` or `504 SOURCE_TIMEOUT` (both with `Retry-After`) or `502 UPSTREAM_ERROR`, never a 200 that hides a failure.",
    "",
    "| HTTP | Code | Meaning |",
    "|---|---|---|",
    ...rows,
  ].join("\n");
}

/** One generated operation completed: auth, sandbox tables, examples, the API's error envelopes and headers. */
function describeOperation(op: Record<string, any>, method: string, path: string, rest: RestMeta, example: OperationExample | undefined) {
  const kind = path.startsWith("/v1") ? "v1" : "api";
  const opKey = `${method.toUpperCase()} ${path}`;
  op.security = SECURITY[rest.auth];
  const tables = SANDBOX_TABLES.filter((t) => t.operations.includes(opKey));
  if (tables.length) op.description = [op.description ?? "", ...tables.map(sandboxTableMarkdown)].filter(Boolean).join("\n\n");
  if (example?.request && op.requestBody?.content?.["application/json"]) op.requestBody.content["application/json"].example = example.request;
  const bodyOverride = rest.documentBody;
  if (bodyOverride && op.requestBody?.content?.["application/json"]?.schema) Object.assign(op.requestBody.content["application/json"].schema, bodyOverride);
  // A path whose parameter is not validly percent-encoded names nothing: the door's NOT_FOUND.
  const pathCodes: ErrorCode[] = path.includes("{") ? ["NOT_FOUND"] : [];
  const codes = new Set<ErrorCode>([...rest.errors, ...COMMON[rest.auth], ...(method === "post" ? COMMON_POST : []), ...pathCodes, ...COMMON_ALL]);
  const success = String(rest.successStatus ?? 200);
  const ok = op.responses?.["200"] as { content?: Record<string, { example?: unknown }>; headers?: Record<string, unknown> } | undefined;
  if (ok) ok.headers = { "X-Request-Id": headerRef("X-Request-Id"), ...(method === "post" ? { "Idempotent-Replayed": headerRef("Idempotent-Replayed") } : {}) };
  const responses: Record<string, unknown> = { [success]: ok };
  const okJson = ok?.content?.["application/json"];
  if (example && okJson) okJson.example = example.response;
  Object.assign(responses, errorResponses(codes, kind));
  op.responses = responses;
  op["x-error-codes"] = [...codes];
  op.parameters = [...(op.parameters ?? []), ...(method === "post" ? [IDEMPOTENCY_KEY_PARAMETER] : []), REQUEST_ID_PARAMETER];
}

/** Error responses by status, each naming its codes and the envelope of the path's family. */
function errorResponses(codes: Set<ErrorCode>, kind: "v1" | "api"): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const s = ERROR_CODES[code].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    const retryAfter = list.filter((c) => RETRY_AFTER_CODES.has(c));
    const headers: Record<string, unknown> = { "X-Request-Id": headerRef("X-Request-Id") };
    if (retryAfter.length) headers["Retry-After"] = headerRef("Retry-After");
    if (status === 405) headers.Allow = headerRef("Allow");
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? "Error"}: ${list.map((c) => `\`${c}\``).join(", ")}`,
      "x-error-codes": list,
      headers,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_NAMES[kind]}` } } },
    };
  }
  return responses;
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: { type: "string", minLength: 1, maxLength: 255 },
  description: "Replays the stored response for 24 h when the same key and body are sent again.",
};

const REQUEST_ID_PARAMETER = {
  name: "X-Request-Id",
  in: "header",
  required: false,
  schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
  description: "Echoed back; otherwise a `req_…` id is assigned.",
};
