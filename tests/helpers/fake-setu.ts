/**
 * A stand-in for Setu's data APIs on a loopback port: Verify PAN and the PennyLess bank account
 * check, answering from a small in-memory world, with faults a test can script per family.
 *
 * Every request it receives and every answer it sends is checked against tests/fixtures/setu
 * (Setu's documented shapes, see its README): the three headers, the product instance of the
 * product called, and the body. A mismatch is recorded in `problems`; tests assert it stays empty.
 * Unknown PANs answer 404 "PAN not found.", as Setu's sandbox does for any PAN it does not know.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";

export type SetuFamily = "pan" | "bank";
/**
 * `hang`: headers never come; `503`/`500`: Setu's error object with that status; `reset`: the
 * connection is cut; `gateway-404`: a 404 that is not Setu's "PAN not found." (a proxy's or a wrong path's).
 */
export type SetuFault = "hang" | "503" | "500" | "429" | "401" | "reset" | "gateway-404";

export interface FakeSetuOptions {
  clientId: string;
  clientSecret: string;
  panProductInstanceId: string;
  bankProductInstanceId: string;
}

export interface SetuPanRecord {
  name: string;
  /** Setu's `aadhaar_seeding_status` (LINKED when absent). */
  seeding?: string;
  /** Found but invalid at NSDL: answered `verification: "failed"`. */
  invalid?: boolean;
}

type Json = Record<string, any>;

const FIXTURE = path.join(__dirname, "../fixtures/setu/data-api.json");

interface EndpointCheck {
  family: SetuFamily;
  request: ValidateFunction;
  answers: Map<number, ValidateFunction>;
}

export function loadSetuValidators(): Map<string, EndpointCheck> {
  const doc = JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const resolve = (schema: Json): Json => (schema.$ref === "#/errorObject" ? doc.errorObject : schema);
  const result = new Map<string, EndpointCheck>();
  for (const [key, endpoint] of Object.entries(doc.endpoints as Record<string, Json>)) {
    const answers = new Map<number, ValidateFunction>();
    for (const [status, schema] of Object.entries(endpoint.answers as Record<string, Json>)) answers.set(Number(status), ajv.compile(resolve(schema)));
    result.set(key, { family: key.includes("/pan") ? "pan" : "bank", request: ajv.compile(endpoint.request), answers });
  }
  return result;
}

/** The documented examples, by endpoint (for the test that holds the rules to them). */
export function setuExamples(): { endpoint: string; status: number; name: string; value: unknown }[] {
  const doc = JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as Json;
  return Object.entries(doc.endpoints as Record<string, Json>).flatMap(([endpoint, e]) => (e.examples as Json[]).map((x) => ({ endpoint, ...x }) as never));
}

export class FakeSetu {
  readonly problems: string[] = [];
  readonly requests: { family: SetuFamily; body: Json; at: number }[] = [];
  readonly panRecords = new Map<string, SetuPanRecord>();
  /** The account holder's name per account number; an account without one answers status ERROR (invalid bank details). */
  readonly accounts = new Map<string, string>();
  url = "";
  private readonly faults = new Map<SetuFamily, { fault: SetuFault; left: number }>();
  private readonly validators = loadSetuValidators();
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;
  private nextId = 1;

  constructor(private readonly options: FakeSetuOptions) {
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
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  count(family?: SetuFamily): number {
    return family ? this.requests.filter((r) => r.family === family).length : this.requests.length;
  }

  fail(family: SetuFamily, fault: SetuFault, times = Infinity): void {
    this.faults.set(family, { fault, left: times });
  }

  clear(family?: SetuFamily): void {
    if (family) this.faults.delete(family);
    else this.faults.clear();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const key = `${req.method} ${new URL(req.url ?? "/", "http://fake.invalid").pathname}`;
    const check = this.validators.get(key);
    if (!check) {
      this.problems.push(`${key}: no such call in Setu's pages`);
      return this.send(res, 404, { status: 404, success: false, error: { code: "path-not-found", detail: "Path not found" } }, null);
    }
    let body: Json = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
    } catch {
      this.problems.push(`${key}: the request body is not JSON`);
    }
    if (!String(req.headers["content-type"] ?? "").startsWith("application/json")) this.problems.push(`${key}: request without Content-Type: application/json`);
    this.requests.push({ family: check.family, body, at: performance.now() });
    const instance = check.family === "pan" ? this.options.panProductInstanceId : this.options.bankProductInstanceId;
    if (!check.request(body)) this.problems.push(`${key}: request does not match Setu's page: ${JSON.stringify(check.request.errors)}`);
    for (const header of ["x-client-id", "x-client-secret", "x-product-instance-id"]) {
      if (!req.headers[header]) this.problems.push(`${key}: request without ${header}`);
    }
    if (req.headers["x-product-instance-id"] !== instance) this.problems.push(`${key}: another product's instance id`);

    const scripted = this.faults.get(check.family);
    if (scripted && scripted.left > 0) {
      scripted.left -= 1;
      switch (scripted.fault) {
        case "hang":
          return;
        case "reset":
          req.socket.destroy();
          return;
        case "401":
          return this.send(res, 401, { status: 401, success: false, error: { code: "unauthorised", detail: "Unauthorised" } }, null);
        case "gateway-404":
          return this.send(res, 404, { message: "Not Found" }, null);
        case "429":
          return this.send(res, 429, { status: 429, success: false, error: { code: "too-many-requests", detail: "Too many requests" } }, null);
        default: {
          const status = Number(scripted.fault);
          const code = status === 503 ? "service-unavailable" : "unable-to-fulfil-request";
          return this.send(res, status, { status, success: false, error: { code, detail: "Try again in a little bit" } }, null);
        }
      }
    }
    if (req.headers["x-client-id"] !== this.options.clientId || req.headers["x-client-secret"] !== this.options.clientSecret) {
      return this.send(res, 401, { status: 401, success: false, error: { code: "unauthorised", detail: "Unauthorised" } }, null);
    }
    const traceId = `1-fake-${this.nextId++}`;
    if (check.family === "pan") {
      const record = this.panRecords.get(String(body.pan));
      if (!record) return this.send(res, 404, { message: "PAN not found.", verification: "failed" }, check);
      if (record.invalid) return this.send(res, 200, { verification: "failed", message: "PAN is invalid" }, check);
      const [first = "", ...rest] = record.name.split(" ");
      const last = rest.pop() ?? "";
      return this.send(
        res,
        200,
        {
          id: `id-${traceId}`,
          verification: "success",
          message: "PAN is valid.",
          data: {
            full_name: record.name,
            first_name: first,
            middle_name: rest.join(" "),
            last_name: last,
            category: String(body.pan).charAt(3) === "P" ? "Individual or Person" : "Company",
            aadhaar_seeding_status: record.seeding ?? "LINKED",
          },
          traceId,
        },
        check,
      );
    }
    const name = this.accounts.get(String(body.accountNumber));
    if (!name) return this.send(res, 200, { status: "ERROR", message: "Invalid bank details", traceId }, check);
    return this.send(
      res,
      200,
      {
        status: "SUCCESS",
        data: {
          bankAccountNumber: body.accountNumber,
          bankAccountName: name,
          bankAccountIfsc: body.ifsc,
          entityType: "INDIVIDUAL",
          ifscCrossCheck: true,
          ifscDetails: { name: "YES BANK", branch: "SANTACRUZ, MUMBAI", city: "MUMBAI", state: "MAHARASHTRA", micr: "400532038" },
        },
        traceId,
      },
      check,
    );
  }

  private send(res: http.ServerResponse, status: number, body: Json, check: EndpointCheck | null): void {
    const validate = check?.answers.get(status);
    if (check && !validate) this.problems.push(`the fake answered ${status}, which Setu's page does not show`);
    if (validate && !validate(body)) this.problems.push(`the fake's ${status} answer does not match Setu's page: ${JSON.stringify(validate.errors)}`);
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }
}

export async function startFakeSetu(options: FakeSetuOptions): Promise<FakeSetu> {
  return new FakeSetu(options).start();
}
