import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUNDLE_ENTRIES } from "../../scripts/build-server";

const root = path.resolve(__dirname, "../..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };

/** Source files a script runs (`tsx scripts/x.ts`, `node --import tsx server.ts`, `bash .ci/run`). */
function filesNamedBy(command: string): string[] {
  return [...command.matchAll(/(?:^|[\s=])((?:\.{0,2}\/)?[\w.@/-]+\.(?:ts|mts|cts|js|mjs|cjs|sh))(?=[\s;&|]|$)/g)].map((m) => m[1]!);
}

/** Committed files, and the bundles `npm run build` writes to dist/ from committed sources. */
function tracked(): Set<string> {
  const out = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" });
  const files = new Set(out.split("\0").filter(Boolean));
  for (const [name, source] of Object.entries(BUNDLE_ENTRIES)) if (files.has(source)) files.add(`dist/${name}.mjs`);
  return files;
}

describe("package.json scripts", () => {
  it("name only files that are committed or built from them", () => {
    const files = tracked();
    const missing: string[] = [];
    for (const [name, command] of Object.entries(pkg.scripts)) {
      for (const file of filesNamedBy(command)) {
        if (!files.has(path.posix.normalize(file))) missing.push(`${name}: ${file}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("finds the files in the commands it checks", () => {
    expect(filesNamedBy("tsx scripts/build.ts")).toEqual(["scripts/build.ts"]);
    expect(filesNamedBy("NODE_ENV=production node --import tsx server.ts --dev")).toEqual(["server.ts"]);
    expect(filesNamedBy("vitest run --project unit")).toEqual([]);
  });
});
