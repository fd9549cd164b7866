/**
 * A stand-in for Cashfree Secure ID on a loopback port: the endpoints Parakh's live adapters call,
 * answering from a small in-memory world, with faults a test can script per family.
 *
 * The status reads (`GET /pan/{reference_id}`, `GET /bank-account`) answer for the verifications the
 * fake made and 404 for any other id; they belong to their product's family, so a fault scripted for
 * "pan" also reaches the EPFO and Aadhaar checks, which read the PAN status.
 *
 * Bulk PAN verification (`POST /pan/bulk`, read back by `GET /pan/bulk`) answers each entry as
 * `POST /pan` answers that PAN and name, after `bulkDelayMs` (or while `bulkHeld`, never) of "File is
 * being processed"; `bulkLeftOut` PANs are missing from its answer, `bulkFailed` PANs come back as
 * failed entries. A second submission of one `bulk_verification_id` is a problem (it would be paid twice).
 *
 * Every request it receives and every answer it sends is checked against the vendor's published
 * OpenAPI description (tests/fixtures/cashfree-verification, read as that folder's README says). A
 * mismatch is recorded in `problems`; tests assert it stays empty, so an adapter that drifts from
 * the vendor's wire, or a fake that does, fails.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";

export type FakeFamily = "pan" | "epfo" | "aadhaar" | "bank";

export type FakeFault =
  /** The vendor's "not on record" business answer for the family. */
  | "not-on-record"
  | "500"
  /** Not in the reference: the one 5xx after which a POST may be retried. */
  | "503"
  | "429"
  | "401"
  | "403"
  /** The vendor's 400 for test credentials sent to its live host. */
  | "test-credentials"
  /** The vendor's 400 for a PAN it will not take (its `pan_length_short` example): a business answer. */
  | "invalid-pan"
  /** Headers never come. */
  | "hang"
  /** 200 and its headers at once, then a byte every 200 ms, never ending. */
  | "trickle"
  | "malformed-json"
  /**
   * The answer the call would get, valid, padded with spaces after its JSON to `bytes` (default just
   * over 1 MiB): sent in chunks, or with its Content-Length when `contentLength` is set.
   */
  | "huge-body"
  /** The connection is cut before any answer. */
  | "reset"
  /** The request takes effect, then its answer is the reference's 500: the caller cannot know it was done. */
  | "lost-answer"
  /** The same answer written the other ways the reference shows (numbers as strings and back, nulls, other date forms). */
  | "quirks";

/** Faults whose answers lie outside the reference on purpose: their bodies or statuses are not checked. */
const OFF_SCHEMA: ReadonlySet<FakeFault> = new Set(["503", "hang", "trickle", "malformed-json", "reset"]);

/** Just over the 1 MiB Parakh reads of an answer. */
export const PAST_ONE_MIB = 1024 * 1024 + 1024;

interface Endpoint {
  family: FakeFamily;
  fixture: string;
  method: "GET" | "POST";
  /** As the reference writes it, `{name}` for a path parameter. */
  path: string;
  /** Query parameters the reference marks required of which its text asks for either one (checked by the fake's answer). */
  eitherOf?: string[];
}

const ENDPOINTS: Endpoint[] = [
  { family: "pan", fixture: "pan-verify.json", method: "POST", path: "/pan" },
  // Before `/pan/{reference_id}`, which would take `/pan/bulk` too.
  { family: "pan", fixture: "pan-bulk.json", method: "POST", path: "/pan/bulk" },
  { family: "pan", fixture: "pan-bulk-get-status.json", method: "GET", path: "/pan/bulk", eitherOf: ["reference_id", "bulk_verification_id"] },
  { family: "pan", fixture: "pan-get-status.json", method: "GET", path: "/pan/{reference_id}" },
  { family: "pan", fixture: "pan-lite.json", method: "POST", path: "/pan-lite" },
  { family: "epfo", fixture: "advance-employment.json", method: "POST", path: "/advance-employment" },
  { family: "aadhaar", fixture: "offline-aadhaar-otp.json", method: "POST", path: "/offline-aadhaar/otp" },
  { family: "aadhaar", fixture: "offline-aadhaar-verify.json", method: "POST", path: "/offline-aadhaar/verify" },
  { family: "bank", fixture: "bank-account-sync.json", method: "POST", path: "/bank-account/sync" },
  { family: "bank", fixture: "bank-account-get-status.json", method: "GET", path: "/bank-account" },
];

/** The endpoint a request is for, with its path parameters. */
function route(method: string | undefined, pathName: string): { endpoint: Endpoint; params: Record<string, string> } | null {
  for (const endpoint of ENDPOINTS) {
    if (endpoint.method !== method) continue;
    const names: string[] = [];
    const pattern = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    const match = new RegExp(`^${pattern}$`).exec(pathName);
    if (match) return { endpoint, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)])) };
  }
  return null;
}

export const FIXTURE_DIR = path.join(__dirname, "../fixtures/cashfree-verification");

/** How loadValidators names an endpoint: its method and its path as the reference writes it ("POST /pan"). */
export const endpointKey = (method: string, pathName: string) => `${method} ${pathName}`;

type Json = Record<string, any>;

export function walk(node: unknown, visit: (schema: Json) => void): void {
  if (Array.isArray(node)) return node.forEach((n) => walk(n, visit));
  if (node && typeof node === "object") {
    visit(node as Json);
    for (const value of Object.values(node)) walk(value, visit);
  }
}

/**
 * Answers: what the vendor's own examples show (nulls anywhere, numbers and strings of digits
 * interchangeable, a stray comma after such digits, empty lists where items are asked for).
 */
export function loosen(doc: Json): Json {
  walk(doc.components?.schemas, (s) => {
    delete s.minItems;
    switch (s.type) {
      case "string":
        s.type = ["string", "number", "null"];
        break;
      case "integer":
      case "number":
        s.type = [s.type, "string", "null"];
        s.pattern ??= "^\\s*-?\\d+(\\.\\d+)?,?\\s*$";
        break;
      case "boolean":
      case "object":
      case "array":
        s.type = [s.type, "null"];
        break;
    }
  });
  return doc;
}

/**
 * Requests: exactly the declared types, and no property the schema does not name. One exception the
 * reference writes itself: a bulk PAN entry's `name` is listed as required, yet described as "The
 * name parameter is optional".
 */
export function tighten(doc: Json): Json {
  walk(doc.components?.schemas, (s) => {
    if (s.type === "object" && s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
  });
  const entry = doc.components?.schemas?.BulkPanRequestSchema?.properties?.entries?.items as Json | undefined;
  if (entry && Array.isArray(entry.required)) {
    entry.required = (entry.required as string[]).filter((name) => name !== "name");
    entry.additionalProperties ??= false;
  }
  return doc;
}

const pointer = (ref: string) => ref.replace(/^#/, "");
const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

export interface EndpointValidators {
  fixture: string;
  path: string;
  headers: { required: string[] };
  /** The body; a GET takes none (an empty object stands for it). */
  request: ValidateFunction;
  /** Path and query parameters together, as strings: only those the reference names, the required ones present. */
  parameters: ValidateFunction;
  /** By HTTP status; a status the reference does not list has none. */
  answers: Map<number, ValidateFunction>;
  /** Every example the reference gives for an answer, by status. */
  examples: { status: number; name: string; value: unknown }[];
}

/** A fake's request body as JSON: none on a GET; JSON with its Content-Type otherwise. Faults go to `problems`. */
export function requestBody(method: string, pathName: string, raw: Buffer, headers: http.IncomingHttpHeaders, problems: string[]): Json {
  const text = raw.toString("utf8");
  if (method === "GET") {
    if (text !== "") problems.push(`GET ${pathName}: a request body on a GET`);
    return {};
  }
  if (!String(headers["content-type"] ?? "").startsWith("application/json")) problems.push(`${pathName}: request without Content-Type: application/json`);
  try {
    return JSON.parse(text) as Json;
  } catch {
    problems.push(`${pathName}: the request body is not JSON`);
    return {};
  }
}

/** Validators for each endpoint from the fixtures (exported for the test that holds the rules to the reference's own examples). */
export function loadValidators(): Map<string, EndpointValidators> {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  const result = new Map<string, EndpointValidators>();
  for (const endpoint of ENDPOINTS) {
    const doc = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, endpoint.fixture), "utf8")) as Json;
    const reqId = `request:${endpoint.fixture}`;
    const resId = `answer:${endpoint.fixture}`;
    ajv.addSchema({ ...tighten(structuredClone(doc)), $id: reqId });
    ajv.addSchema({ ...loosen(structuredClone(doc)), $id: resId });
    const method = endpoint.method.toLowerCase();
    const op = doc.paths[endpoint.path][method] as Json;
    const deref = (node: Json): { node: Json; at: string } => {
      const at = pointer(node.$ref as string);
      return {
        node: at
          .split("/")
          .slice(1)
          .reduce((n: Json, k: string) => n[k.replace(/~1/g, "/")], doc),
        at,
      };
    };
    let request: ValidateFunction;
    if (op.requestBody) {
      const body = deref(op.requestBody as Json);
      const bodySchema = body.node.content["application/json"].schema as Json;
      request = ajv.compile({ $ref: `${reqId}#${bodySchema.$ref ? pointer(bodySchema.$ref as string) : `${body.at}/content/application~1json/schema`}` });
    } else {
      request = ajv.compile({ type: "object", maxProperties: 0 });
    }
    const declared = ((op.parameters ?? []) as Json[]).map((p) => (p.$ref ? deref(p).node : p)).filter((p) => p.in === "path" || p.in === "query");
    const parameters = ajv.compile({
      type: "object",
      properties: Object.fromEntries(declared.map((p) => [p.name, p.schema ?? {}])),
      required: declared.filter((p) => p.required && !endpoint.eitherOf?.includes(p.name as string)).map((p) => p.name),
      additionalProperties: false,
    });
    const answers = new Map<number, ValidateFunction>();
    const examples: EndpointValidators["examples"] = [];
    for (const [status, ref] of Object.entries(op.responses as Record<string, Json>)) {
      const response = ref.$ref ? deref(ref) : { node: ref, at: `/paths/${escape(endpoint.path)}/${method}/responses/${status}` };
      const media = response.node.content?.["application/json"] as Json | undefined;
      if (!media) continue;
      const schema = media.schema as Json;
      answers.set(
        Number(status),
        ajv.compile({ $ref: `${resId}#${schema.$ref ? pointer(schema.$ref as string) : `${response.at}/content/application~1json/schema`}` }),
      );
      for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, Json>)) {
        const value = example.$ref ? deref(example).node.value : example.value;
        examples.push({ status: Number(status), name, value });
      }
    }
    const security = (op.security as Record<string, unknown>[]).flatMap((s) => Object.keys(s));
    const required = security.map((name) => String(doc.components.securitySchemes[name].name).toLowerCase());
    result.set(endpointKey(endpoint.method, endpoint.path), {
      fixture: endpoint.fixture,
      path: endpoint.path,
      headers: { required },
      request,
      parameters,
      answers,
      examples,
    });
  }
  return result;
}

export interface FakeRequest {
  method: "GET" | "POST";
  /** As sent, without the query. */
  path: string;
  family: FakeFamily;
  /** Path and query parameters. */
  params: Record<string, string>;
  body: Json;
  headers: http.IncomingHttpHeaders;
  /** When it came (performance.now() of the fake's process). */
  at: number;
}

export interface FakePanRecord {
  name: string;
  /** YYYY-MM-DD */
  dob: string;
  /** The vendor's `pan_status`: VALID, INVALID, DEACTIVATED, DELETED. */
  status?: string;
  seeding?: string;
}

export interface FakeCashfreeOptions {
  clientId: string;
  clientSecret: string;
}

/** The OTP every number receives. */
export const FAKE_OTP = "246810";

interface Script {
  fault: FakeFault;
  /** Requests left that get it; Infinity until cleared. */
  left: number;
  retryAfter?: string;
  /** huge-body: the answer's size in bytes, and whether its Content-Length is sent. */
  bytes?: number;
  contentLength?: boolean;
}

type FailOptions = { times?: number; retryAfter?: string; bytes?: number; contentLength?: boolean };

export class FakeCashfreeVerification {
  readonly requests: FakeRequest[] = [];
  /** Schema mismatches, in either direction. Tests expect none. */
  readonly problems: string[] = [];
  /** Per PAN; a PAN without a record answers a default individual. */
  readonly panRecords = new Map<string, FakePanRecord>();
  /** The name the bank holds, per account number; an account without one answers a default person. */
  readonly bankNames = new Map<string, string>();
  /** Aadhaar numbers whose holder has no mobile linked. */
  readonly aadhaarWithoutMobile = new Set<string>();
  /** Per PAN, the vendor's answer written out whole: `POST /pan` and bulk entries answer it as it is. */
  readonly panAnswers = new Map<string, Json>();
  /** How long a bulk PAN request reads as "being processed" after it was taken. */
  bulkDelayMs = 0;
  /** While set, every bulk PAN request reads as being processed. */
  bulkHeld = false;
  /** PANs a bulk answer leaves out, and PANs it answers with a failed entry (no status). */
  readonly bulkLeftOut = new Set<string>();
  readonly bulkFailed = new Set<string>();
  /** Bulk PAN requests taken, by their `bulk_verification_id`, with the reads each had. */
  readonly bulks = new Map<string, { ref: number; entries: { pan: string; name?: string }[]; readyAt: number; reads: number }>();
  url = "";
  private readonly scripts = new Map<FakeFamily, Script>();
  /** Families whose requests wait (after they are recorded) until the hold is released. */
  private readonly holds = new Map<FakeFamily, Promise<void>>();
  private readonly validators = loadValidators();
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly otpRefs = new Map<string, { aadhaar: string; expired: boolean }>();
  /** The answers of PAN and bank verifications by reference id, for their status reads. */
  private readonly made = new Map<string, Json>();
  private nextRef = 21_637_861;
  private readonly server: http.Server;

  constructor(private readonly options: FakeCashfreeOptions) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests the fake received on a path (or all). */
  count(path?: string): number {
    return path ? this.requests.filter((r) => r.path === path).length : this.requests.length;
  }

  /** Every request to the family gets the fault, `times` times (default: until `clear`). */
  fail(family: FakeFamily, fault: FakeFault, options: FailOptions = {}): void {
    const { times, ...rest } = options;
    this.scripts.set(family, { fault, left: times ?? Infinity, ...rest });
  }

  /** Requests to the family wait, after they are recorded, until the returned release is called. */
  hold(family: FakeFamily): () => void {
    let release!: () => void;
    this.holds.set(family, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.holds.delete(family);
      release();
    };
  }

  clear(family?: FakeFamily): void {
    if (family) this.scripts.delete(family);
    else this.scripts.clear();
  }

  /** Makes the OTP behind a reference expire at the vendor. */
  expireOtp(refId: string): void {
    const entry = this.otpRefs.get(refId);
    if (entry) entry.expired = true;
  }

  private takeFault(family: FakeFamily): Script | null {
    const script = this.scripts.get(family);
    if (!script || script.left <= 0) return null;
    script.left -= 1;
    return script;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    const pathName = url.pathname;
    const found = route(req.method, pathName);
    const validators = found && this.validators.get(endpointKey(found.endpoint.method, found.endpoint.path));
    if (!found || !validators) {
      this.problems.push(`${req.method} ${pathName}: no such endpoint in the reference`);
      return this.send(res, 404, { type: "invalid_request_error", code: "not_found", message: "not found" }, null);
    }
    const { endpoint } = found;
    const params = { ...Object.fromEntries(url.searchParams), ...found.params };
    const body = requestBody(endpoint.method, pathName, Buffer.concat(chunks), req.headers, this.problems);
    this.requests.push({ method: endpoint.method, path: pathName, family: endpoint.family, params, body, headers: req.headers, at: performance.now() });
    for (const header of validators.headers.required) {
      if (!req.headers[header]) this.problems.push(`${pathName}: request without ${header}`);
    }
    if (!validators.request(body)) this.problems.push(`${pathName}: request does not match the reference: ${JSON.stringify(validators.request.errors)}`);
    if (!validators.parameters(params)) {
      this.problems.push(`${pathName}: parameters do not match the reference: ${JSON.stringify(validators.parameters.errors)}`);
    }

    await this.holds.get(endpoint.family);
    const script = this.takeFault(endpoint.family);
    const fault = script?.fault ?? null;
    if (fault && OFF_SCHEMA.has(fault)) return this.offSchema(res, fault);
    const check = (status: number, answer: unknown) => {
      const validate = validators.answers.get(status);
      if (!validate) this.problems.push(`${pathName}: the fake answered ${status}, which the reference does not list`);
      else if (!validate(answer))
        this.problems.push(`${pathName}: the fake's ${status} answer does not match the reference: ${JSON.stringify(validate.errors)}`);
    };
    if (req.headers["x-client-id"] !== this.options.clientId || req.headers["x-client-secret"] !== this.options.clientSecret || fault === "401") {
      const answer = { type: "authentication_error", code: "authentication_failed", message: "Invalid clientId and clientSecret combination" };
      check(401, answer);
      return this.send(res, 401, answer, null);
    }
    if (fault === "403") {
      const answer = { type: "authentication_error", code: "ip_validation_failed", message: "IP not whitelisted your current ip is 127.0.0.1." };
      check(403, answer);
      return this.send(res, 403, answer, null);
    }
    if (fault === "test-credentials") {
      const answer = { type: "validation_error", code: "x-client-secret_value_invalid", message: "Client secret belongs to test environment" };
      check(400, answer);
      return this.send(res, 400, answer, null);
    }
    if (fault === "invalid-pan" && endpoint.path === "/pan") {
      const answer = { type: "validation_error", code: "pan_length_short", message: "Enter valid PAN." };
      check(400, answer);
      return this.send(res, 400, answer, null);
    }
    if (fault === "lost-answer") {
      this.answer(pathName, body, null);
      const answer = { type: "internal_error", code: "verification_failed", message: "Unable to validate, please retry later", error: { refId: 209 } };
      check(500, answer);
      return this.send(res, 500, answer, null);
    }
    if (fault === "500") {
      const answer = { type: "internal_error", code: "verification_failed", message: "something went wrong" };
      check(500, answer);
      return this.send(res, 500, answer, null);
    }
    if (fault === "429") {
      const answer = { type: "rate_limit_error", code: "too_many_requests_per_operation", message: "Too many requests for this operation, rate limit reached" };
      check(429, answer);
      return this.send(res, 429, answer, script?.retryAfter ?? null);
    }
    const [status, answer] = endpoint.method === "GET" ? this.statusRead(endpoint.path, params, fault) : this.answer(pathName, body, fault);
    check(status, answer);
    if (endpoint.method === "POST" && status === 200 && (pathName === "/pan" || pathName === "/bank-account/sync")) {
      this.made.set(`${endpoint.family}:${String(answer.reference_id)}`, answer);
    }
    if (fault === "huge-body") return this.sendPadded(res, status, answer, script!);
    this.send(res, status, answer, null);
  }

  /** A valid answer made long by whitespace after its JSON (which a JSON reader skips). */
  private sendPadded(res: http.ServerResponse, status: number, body: unknown, script: Script): void {
    const text = JSON.stringify(body);
    const total = Math.max(script.bytes ?? PAST_ONE_MIB, Buffer.byteLength(text));
    res.writeHead(status, { "content-type": "application/json", ...(script.contentLength ? { "content-length": total } : {}) });
    res.write(text);
    let left = total - Buffer.byteLength(text);
    const chunk = " ".repeat(64 * 1024);
    while (left > 0) {
      res.write(left >= chunk.length ? chunk : chunk.slice(0, left));
      left -= chunk.length;
    }
    res.end();
  }

  private send(res: http.ServerResponse, status: number, body: unknown, retryAfter: string | null): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...(retryAfter ? { "retry-after": retryAfter } : {}),
    });
    res.end(text);
  }

  private offSchema(res: http.ServerResponse, fault: FakeFault): void {
    switch (fault) {
      case "503":
        return this.send(res, 503, { type: "internal_error", code: "service_unavailable", message: "service unavailable" }, null);
      case "hang":
        return;
      case "reset":
        res.socket?.destroy();
        return;
      case "malformed-json":
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"status": "VALID", "registered_name": ');
        return;
      case "trickle": {
        res.writeHead(200, { "content-type": "application/json" });
        res.write("{");
        const timer = setInterval(() => res.write(" "), 200);
        this.timers.add(timer);
        res.on("close", () => clearInterval(timer));
        return;
      }
    }
  }

  /** The status of a verification the fake made; as the reference's examples answer an id it never gave. */
  private statusRead(path: string, params: Record<string, string>, fault: FakeFault | null): [number, Json] {
    const missing = fault === "not-on-record";
    if (path === "/pan/bulk") return this.bulkStatus(params, fault);
    if (path === "/pan/{reference_id}") {
      const made = missing ? undefined : this.made.get(`pan:${params.reference_id}`);
      return made ? [200, made] : [404, { type: "not_found_error", code: "referenceId_not_found", message: "Incorrect referenceId" }];
    }
    const refusal = (status: number, code: string, message: string): [number, Json] => [status, { type: "validation_error", code, message }];
    if (params.reference_id === undefined && params.user_id === undefined) return refusal(400, "invalid_request", "Please provide reference_id or user_id");
    if (params.reference_id === undefined) return refusal(404, "user_id_not_found", "user_id does not exist.");
    if (!/^\d+$/.test(params.reference_id)) return refusal(400, "reference_id_value_invalid", "reference_id should be a number.");
    const made = missing ? undefined : this.made.get(`bank:${params.reference_id}`);
    return made ? [200, made] : refusal(404, "reference_id_not_found", "reference_id does not exist.");
  }

  /** A bulk PAN request read back by its id or the fake's reference for it. */
  private bulkStatus(params: Record<string, string>, fault: FakeFault | null): [number, Json] {
    if (params.bulk_verification_id === undefined && params.reference_id === undefined) {
      return [400, { type: "validation_error", code: "reference_id_missing", message: "Either of reference_id or BulkVerificationId can't be empty." }];
    }
    const found =
      params.bulk_verification_id !== undefined
        ? ([params.bulk_verification_id, this.bulks.get(params.bulk_verification_id)] as const)
        : [...this.bulks.entries()].find(([, b]) => String(b.ref) === params.reference_id);
    const [id, bulk] = found ?? [undefined, undefined];
    if (!bulk || (params.reference_id !== undefined && String(bulk.ref) !== params.reference_id)) {
      // Not in the reference: how the vendor answers an id it never took. Its listed 400, with a code of the fake's.
      return [400, { type: "validation_error", code: "bulk_verification_id_not_found", message: "bulk_verification_id does not exist." }];
    }
    bulk.reads++;
    if (this.bulkHeld || Date.now() < bulk.readyAt) {
      return [200, { message: "File is being processed. Try again after some time.", bulk_verification_id: id, reference_id: bulk.ref, count: 0, entries: [] }];
    }
    const entries = bulk.entries
      .filter((e) => !this.bulkLeftOut.has(e.pan))
      .map((e) =>
        this.bulkFailed.has(e.pan)
          ? {
              pan: e.pan,
              reference_id: this.nextRef++,
              name_provided: e.name ?? "",
              valid: null,
              message: "Unable to validate, please retry later",
              pan_status: null,
            }
          : this.panAnswer(e.pan, e.name, this.nextRef++, fault),
      );
    return [200, { bulk_verification_id: id, reference_id: String(bulk.ref), count: entries.length, entries }];
  }

  /** What `POST /pan` answers for a PAN and name (a bulk entry is the same). */
  private panAnswer(pan: string, name: string | undefined, ref: number, fault: FakeFault | null): Json {
    const quirks = fault === "quirks";
    const fixed = this.panAnswers.get(pan);
    if (fixed) return fixed;
    const record = this.panRecords.get(pan) ?? { name: "RAHUL KUMAR SHARMA", dob: "1990-01-01" };
    if (fault === "not-on-record" || record.status === "INVALID") {
      return { pan, reference_id: ref, valid: false, message: "Invalid PAN", pan_status: "INVALID", name_provided: name ?? "" };
    }
    return {
      pan,
      type: pan.charAt(3) === "P" ? "Individual" : "Company",
      reference_id: quirks ? String(ref) : ref,
      name_provided: name ?? "",
      registered_name: record.name,
      valid: true,
      father_name: "",
      message: "PAN verified successfully",
      name_match_score: name ? (quirks ? 100 : "100.00") : quirks ? null : "",
      name_match_result: name ? "DIRECT_MATCH" : "",
      aadhaar_seeding_status: record.seeding ?? (quirks ? "R" : "Y"),
      last_updated_at: "01/01/2019",
      name_pan_card: record.name,
      pan_status: record.status ?? "VALID",
      aadhaar_seeding_status_desc: "Aadhaar is linked to PAN",
    };
  }

  private answer(pathName: string, body: Json, fault: FakeFault | null): [number, Json] {
    const quirks = fault === "quirks";
    const missing = fault === "not-on-record";
    const ref = this.nextRef++;
    switch (pathName) {
      case "/pan":
        return [200, this.panAnswer(String(body.pan), body.name as string | undefined, ref, fault)];
      case "/pan/bulk": {
        const id = String(body.bulk_verification_id);
        if (!/^[A-Za-z0-9_]+$/.test(id)) {
          return [
            400,
            {
              type: "validation_error",
              code: "bulk_verification_id_value_invalid",
              message: "bulk_verification_id should contain only alphanumeric and underscore characters.",
            },
          ];
        }
        const entries = Array.isArray(body.entries) ? (body.entries as { pan: string; name?: string }[]) : [];
        if (entries.length > 10_000) this.problems.push(`/pan/bulk: ${entries.length} entries, over the 10,000 a request takes`);
        if (this.bulks.has(id)) {
          this.problems.push(`/pan/bulk: bulk_verification_id ${id} sent again (its PANs would be paid for twice)`);
          return [400, { type: "validation_error", code: "bulk_verification_id_already_exists", message: "bulk_verification_id already exists" }];
        }
        this.bulks.set(id, { ref, entries, readyAt: Date.now() + this.bulkDelayMs, reads: 0 });
        return [200, { reference_id: ref, message: "Request accepted. You can check the status after some time." }];
      }
      case "/pan-lite": {
        const pan = String(body.pan);
        const record = this.panRecords.get(pan) ?? { name: "RAHUL KUMAR SHARMA", dob: "1990-01-01" };
        const known = !missing && record.status !== "INVALID";
        return [
          200,
          {
            verification_id: body.verification_id,
            reference_id: quirks ? String(ref) : ref,
            pan,
            name: body.name,
            dob: body.dob,
            name_match: known ? (String(body.name).toUpperCase() === record.name ? "Y" : "N") : null,
            dob_match: known ? (body.dob === record.dob ? "Y" : "N") : null,
            pan_status: known ? "E" : "N",
            status: known ? "VALID" : "INVALID",
            aadhaar_seeding_status: known ? "Y" : null,
            aadhaar_seeding_status_desc: known ? "Aadhaar is linked to PAN" : null,
          },
        ];
      }
      case "/advance-employment": {
        const input = { phone: null, pan: null, uan: body.uan ?? null, dob: null, employee_name: null, employer_name: null };
        if (missing) {
          return [
            200,
            {
              verification_id: body.verification_id,
              reference_id: ref,
              status: "EMPLOYMENT_DETAILS_NOT_FOUND",
              input,
              uan_details: [],
              recent_employment_details: null,
            },
          ];
        }
        const entry = (memberId: string, establishment: string, joined: string, exit: string | null) => ({
          uan: body.uan,
          source: "uan",
          source_score: 1,
          basic_details: {
            gender: "MALE",
            dob: "1994-03-15",
            employee_confidence_score: quirks ? null : 1,
            employee_name: "Rahul Kumar Sharma",
            phone: "9988776655",
            aadhaar_verified: true,
          },
          employment_details: {
            member_id: memberId,
            establishment_id: memberId.slice(0, 15),
            exit_date: exit,
            joining_date: joined,
            leave_reason: exit ? "CESSATION (SHORT SERVICE)" : null,
            establishment_name: establishment,
            employer_confidence_score: 0.9,
          },
          additional_details: {
            aadhaar: "XXXXXXXX7561",
            email: null,
            pan: null,
            ifsc: null,
            bank_account: null,
            bank_address: null,
            relation: "F",
            relative_name: "Suresh Sharma",
          },
        });
        return [
          200,
          {
            verification_id: body.verification_id,
            reference_id: quirks ? String(ref) : ref,
            status: "SUCCESS",
            input,
            uan_details: [
              entry("KNBNG00123450000012345", "Vedanta Infotech Private Ltd", "2019-04-01", "2021-06-30"),
              entry("MHBAN00064230000054321", "Cashfree India Private Ltd", "2021-08-02", null),
            ],
            recent_employment_details: {
              employee_details: {
                member_id: "MHBAN00064230000054321",
                exit_date: null,
                joining_date: "2021-08-02",
                uan: body.uan,
                epfo: { recent: true, name_unique: true, pf_filings_details: true },
                employed: true,
                employee_name_match: true,
                exit_date_marked: false,
              },
              employer_details: {
                establishment_id: "MHBAN0006423000",
                establishment_name: "Cashfree India Private Ltd",
                setup_date: "2015-11-19",
                ownership_type: "Private Limited Company",
                employer_confidence_score: 0.9,
                employer_name_match: true,
                pf_filing_details: [{ total_amount: 37524, employees_count: 17, wage_month: "NOV-23" }],
              },
            },
          },
        ];
      }
      case "/offline-aadhaar/otp": {
        const aadhaar = String(body.aadhaar_number);
        if (missing) return [200, { ref_id: ref, status: "INVALID", message: "Invalid Aadhaar Card" }];
        if (this.aadhaarWithoutMobile.has(aadhaar)) return [200, { status: "SUCCESS", message: "Aadhaar not linked to mobile number", ref_id: ref }];
        this.otpRefs.set(String(ref), { aadhaar, expired: false });
        return [200, { status: "SUCCESS", message: "OTP sent successfully", ref_id: quirks ? ref : String(ref) }];
      }
      case "/offline-aadhaar/verify": {
        const entry = this.otpRefs.get(String(body.ref_id));
        const error = (message: string, code = "verification_failed"): [number, Json] => [
          400,
          { type: "validation_error", code, message, error: { refId: 1 } },
        ];
        if (!entry || entry.expired) return error("Otp expired");
        if (body.otp !== FAKE_OTP) return error("OTP entered is invalid");
        return [
          200,
          {
            ref_id: quirks ? Number(body.ref_id) : String(body.ref_id),
            status: "VALID",
            message: "Aadhaar Card Exists",
            care_of: "S/O: Suresh Sharma",
            address: "12, MG Road, Near Bus Stand, Kothrud, Pune, Maharashtra, India - 411038",
            dob: quirks ? "15-03-1994." : "15-03-1994",
            email: "",
            gender: quirks ? "Male" : "M",
            name: "Rahul Kumar Sharma",
            split_address: {
              country: "India",
              dist: "Pune",
              house: "12",
              landmark: "Near Bus Stand",
              pincode: quirks ? 411038 : "411038",
              po: "Kothrud",
              state: "Maharashtra",
              street: "MG Road",
              subdist: "Pune City",
              vtc: "Pune",
              locality: "Kothrud",
            },
            year_of_birth: quirks ? 1994 : "1994",
            mobile_hash: "ed189eb73247cb90b769e7e8d7dfd2efa4cd6a5ec27602f5d2721c035266568c",
            photo_link: "/9j/4AAQSkZJRgABAQAAAQABAAD",
            share_code: quirks ? "1234" : 1234,
            xml_file: "https://example.invalid/offline-aadhaar.xml",
          },
        ];
      }
      case "/bank-account/sync": {
        if (missing) {
          return [
            200,
            {
              reference_id: ref,
              name_at_bank: null,
              bank_name: null,
              city: null,
              branch: null,
              micr: null,
              name_match_score: null,
              name_match_result: null,
              account_status: "INVALID",
              account_status_code: "INVALID_ACCOUNT_FAIL",
              utr: null,
            },
          ];
        }
        return [
          200,
          {
            reference_id: quirks ? String(ref) : ref,
            name_at_bank: this.bankNames.get(String(body.bank_account)) ?? "Rahul Kumar Sharma",
            bank_name: "YES BANK",
            city: "MUMBAI",
            branch: "SANTACRUZ, MUMBAI",
            micr: quirks ? "400532038" : 400532038,
            name_match_score: quirks ? 90 : "90.00",
            name_match_result: "GOOD_PARTIAL_MATCH",
            account_status: "VALID",
            account_status_code: "ACCOUNT_IS_VALID",
            utr: "404223241811",
          },
        ];
      }
    }
    throw new Error(`no answer for ${pathName}`);
  }
}

export async function startFakeCashfreeVerification(options: FakeCashfreeOptions): Promise<FakeCashfreeVerification> {
  return new FakeCashfreeVerification(options).start();
}
