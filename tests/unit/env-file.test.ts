import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SETTING_NAMES } from "@/server/config";
import { loadEnvFile } from "@/server/env-file";
import { PROJECT_ROOT } from "@/server/lib/runtime-files";

function envFile(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-env-"));
  const file = path.join(dir, ".env");
  fs.writeFileSync(file, text);
  return file;
}

describe("loadEnvFile", () => {
  it("adds the file's settings under the real environment: a variable already set, even empty, wins", () => {
    const file = envFile("DATA_DIR=prod-data\nPORT=4000\nTRUSTED_PROXIES=10.0.0.1\n# LOG_LEVEL=debug\nexport HOST=127.0.0.1\n");
    const env: Record<string, string | undefined> = { PARAKH_ENV_FILE: file, PORT: "5000", TRUSTED_PROXIES: "" };
    expect(loadEnvFile(env)).toBe(file);
    expect(env.DATA_DIR).toBe("prod-data");
    expect(env.HOST).toBe("127.0.0.1");
    expect(env.PORT).toBe("5000");
    expect(env.TRUSTED_PROXIES).toBe("");
    expect(env.LOG_LEVEL).toBeUndefined();
  });

  it("reads nothing with PARAKH_ENV_FILE=none, and refuses a named file that is missing", () => {
    const env: Record<string, string | undefined> = { PARAKH_ENV_FILE: "none" };
    expect(loadEnvFile(env)).toBeUndefined();
    expect(Object.keys(env)).toEqual(["PARAKH_ENV_FILE"]);
    expect(() => loadEnvFile({ PARAKH_ENV_FILE: path.join(os.tmpdir(), "no-such-parakh.env") })).toThrow(/Cannot read the settings file/);
  });

  it("reads .env in the project root by default", () => {
    expect(PROJECT_ROOT).toBe(path.resolve(__dirname, "../.."));
    expect(fs.existsSync(path.join(PROJECT_ROOT, "package.json"))).toBe(true);
  });
});

describe(".env.example", () => {
  const text = fs.readFileSync(path.join(PROJECT_ROOT, ".env.example"), "utf8");

  it("is a template: copying it to .env changes nothing until a line is uncommented", () => {
    const active = text.split("\n").filter((l) => /^\s*(export\s+)?[A-Z_][A-Z0-9_]*\s*=/.test(l));
    expect(active).toEqual([]);
    expect(text).not.toMatch(/NODE_ENV=/);
  });

  it("names every setting", () => {
    const missing = SETTING_NAMES.filter((name) => name !== "NODE_ENV" && !new RegExp(`^# ${name}=`, "m").test(text));
    expect(missing).toEqual([]);
  });
});
