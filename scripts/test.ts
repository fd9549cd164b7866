// `npm test`: the stages of scripts/test-steps.ts (types, unit tests and the production build side by
// side; integration tests; `npm start` with the commands of README.md and docs/ beside a benchmark smoke run;
// browser tests; `npm run dev`), stopping at the first failure with its exit code. SKIP_BUILD=1
// reuses an existing build. `npm test -- <file or pattern>…` runs only the tests named (focusedStages).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { focusedStages, stages, type Step } from "./test-steps";

const root = path.resolve(__dirname, "..");
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-test-"));
const reports = {
  vitestUnit: path.join(resultsDir, "vitest-unit.json"),
  vitestIntegration: path.join(resultsDir, "vitest-integration.json"),
  vitestFuzz: path.join(resultsDir, "vitest-fuzz.json"),
  playwright: path.join(resultsDir, "playwright.json"),
};

const running = new Set<ChildProcess>();
let stopping: NodeJS.Signals | undefined;

function kill(target: number, signal: NodeJS.Signals) {
  try {
    process.kill(target, signal);
  } catch {
    // already gone
  }
}

// Children run in their own process groups and get a single SIGINT from here whatever stopped us:
// Playwright stops its web server on SIGINT, while SIGTERM would kill it and orphan the server.
function onSignal(signal: NodeJS.Signals) {
  if (stopping) {
    for (const c of running) if (c.pid) kill(-c.pid, "SIGKILL");
    return;
  }
  stopping = signal;
  process.stderr.write(`\n[test] ${signal}: stopping\n`);
  if (running.size === 0) process.exit(128 + (os.constants.signals[signal] ?? 0));
  for (const c of running) if (c.pid) kill(-c.pid, "SIGINT");
  setTimeout(() => {
    for (const c of running) if (c.pid) kill(-c.pid, "SIGKILL");
  }, 30_000).unref();
}

for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, () => onSignal(s));

/** What `npm run build` leaves: Next's pages and the server's bundle. */
const hasProductionBuild = () => fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(path.join(root, "dist", "server.mjs"));

function cannotRun(step: Step): string | undefined {
  if (step.needs === "chromium" && !fs.existsSync(chromium)) {
    return `Chromium not found at ${chromium}. Playwright cannot download browsers here; install Debian's chromium: apt-get install -y chromium (or set CHROMIUM_PATH).`;
  }
  if ((step.needs === "chromium" || step.needs === "build") && !hasProductionBuild()) {
    return "No production build in .next and dist/: run `npm run build` (or unset SKIP_BUILD).";
  }
  return undefined;
}

/** Runs one step; beside others its lines are prefixed with its name so the logs stay readable. */
function run(step: Step, prefixed: boolean): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", step.command], {
      cwd: root,
      stdio: prefixed ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
      detached: true,
      // The suite runs on its own throwaway data: a developer's .env (another database, SMTP…) stays out.
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PARAKH_ENV_FILE: "none", ...step.env },
    });
    running.add(child);
    if (prefixed) {
      for (const stream of [child.stdout!, child.stderr!]) {
        let rest = "";
        stream.on("data", (c: Buffer) => {
          const lines = (rest + c.toString()).split("\n");
          rest = lines.pop() ?? "";
          for (const line of lines) process.stderr.write(`[${step.name}] ${line}\n`);
        });
        stream.on("end", () => rest && process.stderr.write(`[${step.name}] ${rest}\n`));
      }
    }
    child.on("error", (err) => {
      process.stderr.write(`[test] could not start ${step.command}: ${err.message}\n`);
      running.delete(child);
      resolve(127);
    });
    child.on("exit", (code, signal) => {
      running.delete(child);
      resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
    });
  });
}

function readJson(file: string): any {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** Test counts from the runners' JSON reports, for one closing line over all runners. */
function tally() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let seen = false;
  for (const file of [reports.vitestUnit, reports.vitestIntegration, reports.vitestFuzz]) {
    const v = readJson(file);
    if (!v) continue;
    seen = true;
    passed += v.numPassedTests ?? 0;
    failed += v.numFailedTests ?? 0;
    skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
  }
  const p = readJson(reports.playwright)?.stats;
  if (p) {
    seen = true;
    passed += (p.expected ?? 0) + (p.flaky ?? 0);
    failed += p.unexpected ?? 0;
    skipped += p.skipped ?? 0;
  }
  return seen ? `${passed} passed, ${failed} failed, ${skipped} skipped` : undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

async function main() {
  const started = Date.now();
  const done: string[] = [];
  let exitCode = 0;
  const patterns = process.argv.slice(2);
  const hasBuild = hasProductionBuild();
  const plan = patterns.length ? focusedStages(patterns, reports, hasBuild) : stages(reports, process.env.SKIP_BUILD === "1");
  for (const [i, stage] of plan.entries()) {
    const header = `[test] ${i + 1}/${plan.length} ${stage.map((s) => s.name).join(" + ")}`;
    const problem = stage.map(cannotRun).find(Boolean);
    if (problem) {
      process.stderr.write(`\n${header}: cannot run\n[test] ${problem}\n`);
      done.push(`${stage.map((s) => s.name).join("+")} not run`);
      exitCode = 1;
      break;
    }
    process.stderr.write(`\n${header}: ${stage.map((s) => s.command).join(" & ")}\n`);
    const codes = await Promise.all(
      stage.map(async (step) => {
        const t0 = Date.now();
        const code = await run(step, stage.length > 1);
        done.push(`${step.name} ${seconds(Date.now() - t0)}${code === 0 ? "" : ` FAILED (exit ${code})`}`);
        return code;
      }),
    );
    const failedCode = codes.find((c) => c !== 0);
    if (failedCode !== undefined || stopping) {
      exitCode = stopping ? 128 + (os.constants.signals[stopping] ?? 0) : failedCode!;
      break;
    }
  }
  const counts = tally();
  fs.rmSync(resultsDir, { recursive: true, force: true });
  process.stderr.write(`\n[test] ${exitCode === 0 ? "OK" : "FAILED"}: ${done.join(", ")}; total ${seconds(Date.now() - started)}\n`);
  if (counts) process.stderr.write(`${counts}\n`);
  process.exit(exitCode);
}

void main();
