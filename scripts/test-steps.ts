// What `npm test` runs, stage by stage: steps of one stage run side by side, stages one after the
// other. Each step is a command the README or docs/ show, run exactly as written (the environment only
// picks ports, folders and report files, or scales the benchmark down to a smoke run).

export interface Step {
  name: string;
  /** Run with bash. */
  command: string;
  env?: Record<string, string>;
  /** Returns why the step cannot run, if it cannot. */
  needs?: "chromium" | "build";
}

export function stages(reports: { vitestUnit: string; vitestIntegration: string; vitestFuzz: string; playwright: string }, skipBuild: boolean): Step[][] {
  return [
    // Cheap and independent: lint, format, types, pure logic and the production build share the two cores.
    [
      { name: "lint", command: "npm run lint" },
      { name: "format", command: "npm run format:check" },
      { name: "typecheck", command: "npm run typecheck" },
      { name: "unit", command: "npm run test:unit", env: { VITEST_JSON_REPORT: reports.vitestUnit } },
      // SKIP_BUILD=1 keeps Next's build but brings the server's bundle up to the sources (about a second).
      skipBuild ? { name: "bundle", command: "npx tsx scripts/build-server.ts --if-stale" } : { name: "build", command: "npm run build" },
    ],
    // Integration tests start servers and time things: alone.
    [{ name: "integration", command: "npm run test:integration", env: { VITEST_JSON_REPORT: reports.vitestIntegration } }],
    // The browser tests spend most of their time waiting on pages, clocks and the job queue (about a
    // third of a core each), so the rest runs beside them: `npm start` and every other README command
    // that needs a running server (CLI lines, curl examples); the benchmark as a smoke run (one short
    // SQLite round, so the command is known to work; its figures mean nothing here, the numbers to quote
    // come from a bench run alone); the fuzz harness, requests generated from the API document, 30 s a
    // database. Each starts its own servers on ports of its own.
    [
      { name: "e2e", command: "npm run test:e2e", env: { PLAYWRIGHT_JSON_OUTPUT_FILE: reports.playwright }, needs: "chromium" },
      { name: "npm start", command: "npx tsx scripts/smoke.ts start", needs: "build" },
      {
        name: "bench",
        command: "npm run bench",
        env: { BENCH_SECONDS: "1", BENCH_DB: "sqlite", BENCH_CONNECTIONS: "10", BENCH_LIVE_CONNECTIONS: "20" },
        needs: "build",
      },
      { name: "fuzz", command: "npm run fuzz", env: { FUZZ_SECONDS: "30", VITEST_JSON_REPORT: reports.vitestFuzz } },
    ],
    [{ name: "npm run dev", command: "npx tsx scripts/smoke.ts dev" }],
  ];
}

const shellQuote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/**
 * `npm test -- <file or pattern>…`: only the tests those name. Patterns under `e2e/` (or ending
 * `.spec.ts`) go to Playwright, after a production build when there is none; the rest to vitest, whose
 * unit and integration projects both filter by them. No lint, format or type check.
 */
export function focusedStages(patterns: string[], reports: { vitestUnit: string; playwright: string }, hasBuild: boolean): Step[][] {
  const isE2e = (p: string) => p.startsWith("e2e/") || p.endsWith(".spec.ts");
  const browser = patterns.filter(isE2e);
  const vitest = patterns.filter((p) => !isE2e(p));
  const plan: Step[][] = [];
  if (vitest.length)
    plan.push([{ name: "vitest", command: `npx vitest run ${vitest.map(shellQuote).join(" ")}`, env: { VITEST_JSON_REPORT: reports.vitestUnit } }]);
  if (browser.length) {
    if (!hasBuild) plan.push([{ name: "build", command: "npm run build" }]);
    plan.push([
      {
        name: "e2e",
        command: `npx playwright test ${browser.map(shellQuote).join(" ")}`,
        env: { PLAYWRIGHT_JSON_OUTPUT_FILE: reports.playwright },
        needs: "chromium",
      },
    ]);
  }
  return plan;
}

/** Commands of README.md and docs/*.md run by a step of `npm test` itself (the rest are run by `scripts/smoke.ts start`). */
export const README_COMMANDS_RUN_BY_STEPS: Record<string, string> = {
  "npm install && npm run dev":
    ".ci/run installs with `npm ci`, then runs `npm install` and fails if it changes the lockfile; the `npm run dev` step starts the quick start",
  "npm test": "the command CI runs (.ci/run)",
  "npm run dev": "the `npm run dev` step",
  "npm run build": "the build step",
  "npm start": "the `npm start` step",
  "npm run test:unit": "the unit step",
  "npm run test:integration": "the integration step",
  "npm run test:e2e": "the e2e step",
  "npm run typecheck": "the typecheck step",
  "npm run lint": "the lint step",
  "npm run format:check": "the format step",
  "npm run bench": "the bench step (one short round)",
  "npm run fuzz": "the fuzz step (FUZZ_SECONDS=30 a database)",
};
