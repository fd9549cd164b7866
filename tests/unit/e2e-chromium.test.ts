import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, PLAYWRIGHT_DISABLED_FEATURES } from "../../e2e/chromium";

/** The features the installed Playwright turns off (its `disabledFeatures` list), read from its own code. */
function installedPlaywrightDisabledFeatures(): string[] {
  const libDir = path.dirname(createRequire(import.meta.url).resolve("playwright-core/package.json"));
  const files = fs.readdirSync(path.join(libDir, "lib"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
  for (const file of files) {
    const text = fs.readFileSync(path.join(libDir, "lib", file), "utf8");
    const m = /disabledFeatures = \[([\s\S]*?)\]/.exec(text);
    if (m) return [...m[1]!.replace(/\/\/.*$/gm, "").matchAll(/"([^"]+)"/g)].map((x) => x[1]!);
  }
  throw new Error("playwright-core's disabledFeatures list not found");
}

describe("the browser tests' chromium", () => {
  it("keeps every feature Playwright turns off, since a second --disable-features replaces Playwright's", () => {
    const installed = installedPlaywrightDisabledFeatures();
    expect(installed.length).toBeGreaterThan(5);
    expect(PLAYWRIGHT_DISABLED_FEATURES).toEqual(expect.arrayContaining(installed));
  });

  it("gives one --disable-features: Playwright's, and the address bar's WebUI popups", () => {
    const flags = CHROMIUM_ARGS.filter((a) => a.startsWith("--disable-features="));
    expect(flags).toHaveLength(1);
    const features = flags[0]!.slice("--disable-features=".length).split(",");
    expect(features).toEqual(expect.arrayContaining([...PLAYWRIGHT_DISABLED_FEATURES, "WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]));
  });
});
