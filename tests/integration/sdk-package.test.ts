import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../..");
const PACKAGE_DIR = path.join(ROOT, "packages/node");
const TSC = path.join(ROOT, "node_modules/.bin/tsc");

// What a merchant's project gets from `npm install @parakh/node`: the tarball `npm pack` makes (after
// the package's own build), installed into an empty project with nothing else, must type-check a
// consumer under --strict without Node's or the DOM's types, and import and run under plain node.
const CONSUMER = `
import {
  Parakh, ParakhError, InvalidRequestError, RateLimitError, constructEvent,
  type PanVerification, type PaymentStatus, type WebhookEvent, type ResponseMeta,
} from "@parakh/node";

const parakh = new Parakh({ baseUrl: "https://api.parakh.example", merchantId: "mer_abc", publicKey: "pk_test_abc", secretKey: "sk_test_abc" });

export async function flows(): Promise<string[]> {
  const pan: PanVerification = await parakh.pan.verify({ pan: "ABCPK1234F", name: "Arjun Kapoor" });
  const score: number | null = pan.name_match;
  const { data, response } = await parakh.checkout.create({ orderId: "ORDER_1", amount: "499" }).withResponse();
  const meta: ResponseMeta = response;
  const status: PaymentStatus["status"] = (await parakh.payments.retrieve(data.paymentId)).status;
  const otp = await parakh.kyc.aadhaar.generateOtp({ aadhaarNumber: "234567890009" });
  await parakh.kyc.aadhaar.verifyOtp({ aadhaarNumber: "234567890009", otp: "123456", requestId: otp.requestId });
  const failed: number[] = [];
  for await (const item of parakh.pan.batches.results("batch_1", { status: "FAILED" })) failed.push(item.index);
  // @ts-expect-error a KYC body never takes merchantId: the client adds it
  await parakh.kyc.pan({ pan: "ABCPK1234F", merchantId: "mer_abc" });
  // @ts-expect-error a PAN batch needs its items
  await parakh.pan.batches.create({ webhook_url: "https://shop.example/hooks" });
  return [String(score), String(meta.requestId), status, String(failed.length)];
}

export function handle(raw: string, header: string): string {
  const event: WebhookEvent = constructEvent(raw, header, ["whsec_new", "whsec_old"], { toleranceSec: 300 });
  switch (event.type) {
    case "payment.success":
      return event.data.payment.paymentId;
    case "pan.batch.completed":
      return event.data.results_url;
    default:
      return event.type;
  }
}

export function describeError(e: unknown): string {
  if (e instanceof InvalidRequestError) return e.details.map((d) => d.field).join(",");
  if (e instanceof RateLimitError) return String(e.retryAfter);
  if (e instanceof ParakhError) return e.code + String(e.status) + String(e.requestId) + String(e.attemptsRemaining);
  return "other";
}
`;

const RUNTIME = `
import { Parakh, constructEvent, SignatureVerificationError, VERSION } from "@parakh/node";
const body = '{"id":"evt_1","type":"payment.success","created_at":"2023-11-14T22:13:20.000Z","mode":"sandbox","data":{}}';
const sig = "t=1700000000,v1=3cb426933c8949d74f4b3761906855d7ab7ae7a690949291fd3a3e4c98889e23";
const event = constructEvent(body, sig, "whsec_test_secret", { nowSec: 1700000000 });
let refused = "";
try { constructEvent(body, sig, "whsec_wrong", { nowSec: 1700000000 }); } catch (e) { refused = e instanceof SignatureVerificationError ? e.code : "other"; }
const mode = new Parakh({ baseUrl: "http://127.0.0.1:9", secretKey: "sk_live_x" }).mode;
process.stdout.write(JSON.stringify({ type: event.type, refused, mode, VERSION }));
`;

describe("the @parakh/node tarball", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-sdk-pack-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("installs into an empty project, type-checks a consumer under --strict and runs under node", async () => {
    const packed = await run("npm", ["pack", "--json", "--pack-destination", tmp], { cwd: PACKAGE_DIR, maxBuffer: 16 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files.filter((f) => !f.startsWith("dist/") && f !== "package.json" && f !== "README.md")).toEqual([]);

    const project = path.join(tmp, "consumer");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    await run("npm", ["install", path.join(tmp, info!.filename), "--offline", "--no-audit", "--no-fund"], { cwd: project });
    const installed = JSON.parse(fs.readFileSync(path.join(project, "node_modules/@parakh/node/package.json"), "utf8"));
    expect(installed.dependencies ?? {}).toEqual({});

    fs.writeFileSync(path.join(project, "consumer.ts"), CONSUMER);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        lib: ["ES2022"],
        types: [],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        skipLibCheck: false,
      },
      files: ["consumer.ts"],
    };
    fs.writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify(tsconfig));
    const checked = await run(TSC, ["-p", "tsconfig.json"], { cwd: project }).catch((e: { stdout: string; stderr: string }) => e);
    expect(checked.stdout + checked.stderr).toBe("");

    fs.writeFileSync(path.join(project, "runtime.mjs"), RUNTIME);
    const ran = await run(process.execPath, ["runtime.mjs"], { cwd: project });
    expect(JSON.parse(ran.stdout)).toEqual({ type: "payment.success", refused: "WEBHOOK_SIGNATURE_INVALID", mode: "live", VERSION: installed.version });
  }, 180_000);
});
