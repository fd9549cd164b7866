import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../..");

/**
 * The SDK examples of the documents (their `ts` blocks), as a reader takes them: each document's blocks
 * joined in order into one program that imports "@parakh/node" as written (mapped to the package's
 * source), type-checked under --strict, then run against a sandbox server with the environment the
 * README names. Every `console.log(…); // expected` must print what its comment says (`…` is anything).
 */
function sdkExamples(markdown: string): string {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).join("\n");
}

function promisedLines(program: string): string[] {
  return [...program.matchAll(/console\.log\(.*\);\s*\/\/ (.+)$/gm)].map((m) => m[1]!.trim());
}

const lineMatches = (expected: string, actual: string) =>
  new RegExp(
    `^${expected
      .split("…")
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  ).test(actual);

describe.each(["README.md", "docs/sdk.md"])("the SDK examples of %s", (file) => {
  let server: TestServer;
  let m: MerchantFixture;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-sdk-docs-"));
  const program = sdkExamples(fs.readFileSync(path.join(ROOT, file), "utf8"));

  beforeAll(async () => {
    server = await startServer();
    m = await createMerchantViaCli(server.env);
    expect((await cli(server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    fs.writeFileSync(path.join(dir, "examples.mts"), program.replaceAll("http://localhost:3000", server.url));
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        skipLibCheck: true,
        typeRoots: [path.join(ROOT, "node_modules/@types")],
        types: ["node"],
        paths: { "@parakh/node": [path.join(ROOT, "packages/node/src/index.ts")] },
      },
      files: ["examples.mts"],
    };
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("has examples, each printing line promising its output", () => {
    expect(program).toContain('from "@parakh/node"');
    expect(promisedLines(program).length).toBeGreaterThan(0);
  });

  it("type-check under --strict as written", async () => {
    const checked = await run(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: dir }).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    expect(checked.stdout + checked.stderr).toBe("");
  });

  it("run against a sandbox server and print what they promise", async () => {
    const env = {
      ...process.env,
      MERCHANT_ID: m.merchantId,
      PUBLIC_KEY: m.sandbox.publicKey,
      SECRET_KEY: m.sandbox.secretKey,
      SIGNING_SECRET: m.sandbox.signingSecret,
    };
    const ran = await run(path.join(ROOT, "node_modules/.bin/tsx"), ["--tsconfig", "tsconfig.json", "examples.mts"], { cwd: dir, env }).catch(
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    const printed = ran.stdout.trim().split("\n");
    const promised = promisedLines(program);
    expect(printed.length, `${ran.stdout}${ran.stderr}`).toBe(promised.length);
    promised.forEach((expected, i) => expect(lineMatches(expected, printed[i]!), `line ${i + 1}: ${printed[i]} is not ${expected}`).toBe(true));
  });
});
