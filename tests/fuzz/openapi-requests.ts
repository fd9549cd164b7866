import fc from "fast-check";

/**
 * Requests for every REST operation of the API document, generated from its own schemas: mostly the
 * shapes it describes (with values a real merchant would send, so requests get past validation and
 * reach the services), laced with hostile values at any depth: control characters, U+0000, lone
 * surrogates, line separators, bidi overrides, 10 KB strings, huge and negative numbers, -0, deep
 * nesting, wrong types, unknown keys. Nothing here knows the server's rules but the document.
 */

export type JsonSchema = Record<string, any>;

export interface Operation {
  method: "get" | "post";
  /** The OpenAPI path template, e.g. `/api/payments/{paymentId}/status`. */
  template: string;
  op: Record<string, any>;
}

export interface FuzzRequest {
  operation: Operation;
  method: string;
  /** Path and query, percent-encoded as sent. */
  path: string;
  /** The JSON body as sent (already serialised, so raw number tokens such as -0 survive), if any. */
  body?: string;
  contentType?: string;
  idempotencyKey?: string;
}

export function operationsOf(doc: JsonSchema): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const method of ["get", "post"] as const) if (item[method]) out.push({ method, template, op: item[method] });
  }
  return out;
}

/** Strings that have broken parsers, databases, logs and pages somewhere. */
export const HOSTILE_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\u0001\u0002\u001b[31m\u007f",
  "\t\n\r\u000b\u000c",
  "\ud800",
  "x\udfffy",
  "\udc00\ud800",
  "\u2028\u2029",
  "\u202eevil\u202c",
  "\u2066\u2067\u2068\u2069",
  "\u200b\u200c\u200d\ufeff",
  "\ufffd\uffff",
  "😀👨‍👩‍👧",
  "ＡＢＣＰＫ１２３４Ｆ",
  "२३४५६७८९०००९",
  "' OR '1'='1' --",
  '"; DROP TABLE "Payment"; --',
  "<script>alert(1)</script>",
  "${jndi:ldap://x/a}",
  "{{7*7}}",
  "%00%2e%2e%2f",
  "../../../../etc/passwd",
  "\r\nX-Injected: 1",
  "4111 1111 1111 1111",
  "sk_live_AAAAAAAAAAAAAAAAAAAAAAAA",
  "null",
  "NaN",
  "-0",
  "1e308",
  "x".repeat(10_000),
  "é".repeat(3_000),
  "💩".repeat(2_600),
];

/** Numbers JSON can carry that code often gets wrong; written raw into the text (JSON.stringify would change some). */
export const RAW_NUMBERS = [
  "-0",
  "1e308",
  "1e309",
  "-1e309",
  "5e-324",
  "9007199254740993",
  "123456789012345678901234567890",
  "0.1",
  "-1",
  "0",
  "1.005",
  "100000.001",
];

/** Values a merchant would really send, by field name: they let a request get past validation into the services. */
const PLAUSIBLE: Record<string, readonly unknown[]> = {
  pan: ["ABCPK1234F", "ABCPK9991F", "ABCPK9992F", "ABCPK9993F", "ABCPK9994F", "AAACR5055K", "abcpk1234f", " ABCPK1234F "],
  name: ["Arjun Kapoor", "RAKESH K SINGH", "Dr. A. P. J. Abdul Kalam", "Reliance Test Ltd"],
  uan: ["100200300400", "100200309991", "100200309992", "100200309993"],
  pf_number: ["MH/BAN/0000064/000/0000123", "MHBAN00000640000000123", "DL/CPM/0012345/000/0009991"],
  amount: [10, "10.00", 499, "499.5", 100000, "1", 0.5],
  orderId: ["ORDER_fz"],
  redirectUrl: ["https://shop.example/return", "http://localhost:9/x"],
  webhook_url: ["https://hooks.example/parakh"],
  aadhaarNumber: ["234567890009", "2345 6789 0009"],
  otp: ["123456", "000000"],
  ifsc: ["HDFC0001234", "SBIN0000001"],
  accountNumber: ["50100123456789", "123456780000", "123456789998"],
  dob: ["1990-01-01", "2999-01-01", "1990-02-30"],
  outcome: ["SUCCESS", "FAILED", "PENDING", "ABANDONED"],
  method: ["upi", "card", "netbanking"],
  merchantRefundId: ["RFND_fz"],
  reason: ["Customer returned the item", "fail_refund"],
  email: ["asha@example.com"],
  phone: ["+919876543210"],
  status: ["SUCCEEDED", "FAILED", "PENDING"],
  limit: [1, 1000, 1001, 0],
  cursor: ["", "abc"],
};

/** A unique suffix, so order and refund ids do not all collide. */
let unique = 0;
const uniqueArb = fc.constant(null).map(() => `${Date.now().toString(36)}${(unique++).toString(36)}`);

const RAW_MARK = "\u0001raw:";
const rawNumberArb = fc.constantFrom(...RAW_NUMBERS).map((n) => `${RAW_MARK}${n}`);

function deepNest(depth: number): unknown {
  let v: unknown = "deep";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const wrongTypeArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, "", [], {}, [null], { "": "" }),
  rawNumberArb,
  fc.constantFrom(10, 31, 40, 300).map(deepNest),
  fc.jsonValue({ maxDepth: 3 }),
);

const hostileStringArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom("\u0000", "\ud800", "\udc00", "\u2028", "\u202e", "a", "1", " ", "_"), maxLength: 12 }) },
);

function resolve(doc: JsonSchema, schema: JsonSchema): JsonSchema {
  let s = schema;
  for (let i = 0; i < 10 && typeof s?.$ref === "string"; i++) {
    const path = (s.$ref as string).replace(/^#\//, "").split("/");
    s = path.reduce((node: any, key) => node?.[key], doc);
  }
  return s ?? {};
}

function stringArb(schema: JsonSchema, name: string, wild = true): fc.Arbitrary<unknown> {
  const plausible: fc.Arbitrary<unknown>[] = [];
  if (Array.isArray(schema.enum)) plausible.push(fc.constantFrom(...schema.enum));
  if (schema.example !== undefined) plausible.push(fc.constant(schema.example));
  const known = PLAUSIBLE[name];
  if (known) plausible.push(fc.constantFrom(...known));
  if (name === "orderId") plausible.push(uniqueArb.map((u) => `ORDER_fz_${u}`));
  if (name === "merchantRefundId") plausible.push(uniqueArb.map((u) => `RFND_fz_${u}`));
  if (plausible.length === 0) plausible.push(fc.string({ maxLength: 20 }));
  const good = fc.oneof(...plausible);
  if (!wild) return good;
  return fc.oneof(
    { weight: 8, arbitrary: good },
    { weight: 2, arbitrary: hostileStringArb },
    // A good value with something hostile inside it.
    { weight: 2, arbitrary: fc.tuple(good, hostileStringArb, fc.boolean()).map(([g, h, before]) => (before ? `${h}${String(g)}` : `${String(g)}${h}`)) },
  );
}

function numberArb(schema: JsonSchema, name: string, wild = true): fc.Arbitrary<unknown> {
  const plausible: unknown[] = [...(PLAUSIBLE[name] ?? [])];
  for (const k of ["example", "minimum", "maximum"]) if (typeof schema[k] === "number") plausible.push(schema[k]);
  const good = plausible.length ? fc.constantFrom(...plausible) : fc.integer({ min: -5, max: 5 });
  if (!wild) return good;
  return fc.oneof(
    { weight: 5, arbitrary: good },
    { weight: 2, arbitrary: rawNumberArb },
    { weight: 2, arbitrary: schema.type === "integer" ? fc.integer() : fc.double({ noNaN: true, noDefaultInfinity: true }) },
  );
}

/**
 * An arbitrary for values of `schema`, named `name` (its property name): `wild`, mostly well-formed
 * with hostile values anywhere; tame, only values a merchant would send (which may still be refused).
 */
export function valueArb(doc: JsonSchema, schemaIn: JsonSchema, name = "", depth = 0, wild = true): fc.Arbitrary<unknown> {
  const schema = resolve(doc, schemaIn);
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  let shaped: fc.Arbitrary<unknown>;
  if (alternatives && !schema.properties) {
    const options = wild ? alternatives : alternatives.filter((alt) => alt.type !== "null");
    shaped = fc.oneof(
      ...(options.length ? options : alternatives).map((alt) => valueArb(doc, { ...alt, example: alt.example ?? schema.example }, name, depth + 1, wild)),
    );
  } else if (schema.type === "object" || schema.properties) {
    shaped = objectArb(doc, schema, depth, wild);
  } else if (schema.type === "array") {
    const items = schema.items ? valueArb(doc, schema.items, name, depth + 1, wild) : fc.jsonValue({ maxDepth: 1 });
    shaped = fc.array(items, { minLength: wild ? 0 : 1, maxLength: Math.min(schema.maxItems ?? 5, 5) });
  } else if (schema.type === "string") shaped = stringArb(schema, name, wild);
  else if (schema.type === "number" || schema.type === "integer") shaped = numberArb(schema, name, wild);
  else if (schema.type === "boolean") shaped = fc.boolean();
  else if (schema.type === "null") shaped = fc.constant(null);
  else shaped = fc.jsonValue({ maxDepth: 2 });
  return wild ? fc.oneof({ weight: 20, arbitrary: shaped }, { weight: 1, arbitrary: wrongTypeArb }) : shaped;
}

function objectArb(doc: JsonSchema, schema: JsonSchema, depth: number, wild: boolean): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  // A body whose schema says "one of these required": its first alternative's keys count as required.
  const oneOf = (schema.oneOf ?? []) as JsonSchema[];
  for (const k of oneOf[0]?.required ?? []) required.add(k);
  const record = fc.record(Object.fromEntries(props.map(([k, s]) => [k, valueArb(doc, s, k, depth + 1, wild)])), {
    requiredKeys: [],
  }) as fc.Arbitrary<Record<string, unknown>>;
  const keep = fc.array(fc.boolean(), { minLength: props.length, maxLength: props.length });
  const extra = fc.dictionary(fc.oneof(fc.constantFrom(...HOSTILE_STRINGS.slice(0, 16)), fc.string({ maxLength: 8 })), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 2,
  });
  return fc.tuple(record, keep, wild ? fc.option(extra, { freq: 5 }) : fc.constant(null), fc.nat({ max: 9 })).map(([values, keepMask, unknown, mode]) => {
    const out: Record<string, unknown> = {};
    props.forEach(([k], i) => {
      // Every required key, most optional ones; when wild, sometimes a required one is missing.
      const present = required.has(k) ? !wild || mode !== 0 || keepMask[i] : keepMask[i];
      if (present && k in values) out[k] = values[k];
      else if (present && required.has(k)) out[k] = null;
    });
    // One of the alternatives only, when the schema asks for exactly one.
    if (!wild) for (const alt of oneOf.slice(1)) for (const k of alt.required ?? []) delete out[k];
    return unknown ? { ...out, ...unknown } : out;
  });
}

/** Small hostile pieces laced into one value of an otherwise ordinary request; the ones no database stores as sent most often. */
const LACES = [
  "\u0000",
  "\u0000",
  "\u0000",
  "\u0000",
  "\ud800",
  "\udfff",
  "\u2028",
  "\u202e",
  "\u0007",
  "\u001b",
  "\ufeff",
  "\ufffe",
  "😀",
  "\r\n",
  "'",
  '"',
  "\\",
  "x".repeat(10_000),
];

/** Every place in a JSON value that could hold something else: [path, current value]. */
function places(value: unknown, path: (string | number)[] = [], out: [(string | number)[], unknown][] = []) {
  out.push([path, value]);
  if (Array.isArray(value)) value.forEach((v, i) => places(v, [...path, i], out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) places(v, [...path, k], out);
  return out;
}

function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaced(v, rest, by) : v));
  return { ...(value as Record<string, unknown>), [head!]: replaced((value as Record<string, unknown>)[head!], rest, by) };
}

/** An ordinary value with one place in it made hostile: a string laced, a number raw, or any value of the wrong type. */
function lacedArb(plain: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(plain, fc.nat(), fc.constantFrom(...LACES), fc.nat({ max: 2 }), rawNumberArb, wrongTypeArb).map(([v, pick, lace, where, raw, wrong]) => {
    const all = places(v).filter(([path]) => path.length > 0);
    if (all.length === 0) return v;
    const [path, current] = all[pick % all.length]!;
    if (typeof current === "string") return replaced(v, path, where === 0 ? `${lace}${current}` : where === 1 ? `${current}${lace}` : lace);
    if (typeof current === "number") return replaced(v, path, raw);
    return replaced(v, path, wrong);
  });
}

/** Percent-encodes a path or query value as a client would; text that is not UTF-16 goes as the bytes a broken client sends. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value.replace(/[\ud800-\udfff]/g, "\uFFFF").replace(/[^A-Za-z0-9_.~-]/g, (c) => (c === "\uFFFF" ? "%ED%A0%80" : encodeURIComponent(c)));
  }
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

/** JSON text of a body, with raw number tokens written as numbers (`-0`, `1e309`). */
export function bodyText(body: unknown): string {
  return JSON.stringify(body).replace(/"\\u0001raw:([^"]*)"/g, "$1");
}

/**
 * One request for `operation`: path ids (mostly from `ids`, the ids the fuzzing merchant owns, so
 * lookups find something), query, body, sometimes the wrong media type, broken JSON or an
 * Idempotency-Key of any length.
 */
export function requestArb(doc: JsonSchema, operation: Operation, ids: () => Record<string, string[]>): fc.Arbitrary<FuzzRequest> {
  const params = (operation.op.parameters ?? []) as JsonSchema[];
  const pathParams = params.filter((p) => p.in === "path");
  const queryParams = params.filter((p) => p.in === "query");
  const idArb = (name: string) =>
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .constant(null)
          .map(() => ids()[name] ?? [])
          .chain((own) => (own.length ? fc.constantFrom(...own) : fc.constant("none"))),
      },
      { weight: 2, arbitrary: stringArb(resolve(doc, pathParams.find((p) => p.name === name)?.schema ?? {}), name) },
      { weight: 1, arbitrary: hostileStringArb },
    );
  const schema = operation.op.requestBody?.content?.["application/json"]?.schema;
  // Wild bodies, ordinary ones, and ordinary ones with one hostile value: that last kind gets past
  // every other check, so the one value reaches as deep as it can.
  const bodyArb = schema
    ? fc.oneof(
        { weight: 3, arbitrary: valueArb(doc, schema) },
        { weight: 2, arbitrary: valueArb(doc, schema, "", 0, false) },
        { weight: 5, arbitrary: lacedArb(valueArb(doc, schema, "", 0, false)) },
      )
    : fc.constant(undefined);
  const queryArb = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, valueArb(doc, p.schema ?? {}, p.name)])), { requiredKeys: [] });
  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, idArb(p.name)]))) as fc.Arbitrary<Record<string, unknown>>;
  const framing = fc.oneof(
    { weight: 20, arbitrary: fc.constant({ kind: "json" as const }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1")
        .map((ct) => ({ kind: "media" as const, ct })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("{", '{"a":', "[1,2", '{"a":1}}', "\u0000", "nul", '{"a":"\\ud800"}').map((raw) => ({ kind: "broken" as const, raw })),
    },
  );
  // Any printable header text (a header cannot carry controls), up to past the 255-character limit.
  const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
  const idempotency = fc.option(
    fc.oneof(
      uniqueArb.map((u) => `idem-${u}`),
      fc.string({ unit: printable, minLength: 0, maxLength: 300 }),
    ),
    { freq: 4 },
  );
  return fc.tuple(pathArb, queryArb, bodyArb, framing, idempotency).map(([path, query, body, frame, key]) => {
    let url = operation.template.replace(/\{([^}]+)\}/g, (_m, name: string) => encode(asText(path[name])));
    const search = Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${encode(k)}=${encode(asText(v).replace(/^\u0001raw:/, ""))}`);
    if (search.length) url += `?${search.join("&")}`;
    const req: FuzzRequest = { operation, method: operation.method.toUpperCase(), path: url };
    if (operation.method === "post") {
      if (frame.kind === "broken") req.body = frame.raw;
      else req.body = body === undefined ? "{}" : bodyText(body);
      req.contentType = frame.kind === "media" ? frame.ct : "application/json";
      if (key !== null) req.idempotencyKey = key;
    }
    return req;
  });
}
