// `npm test`: unit + integration (vitest), the production build and start (`npm run build`,
// `npm start`), browser tests (Playwright) and the development start (`npm run dev`), in that
// order, stopping at the first failure with its exit code. SKIP_BUILD=1 reuses an existing build.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-test-"));
const vitestJson = path.join(resultsDir, "vitest.json");
const playwrightJson = path.join(resultsDir, "playwright.json");

interface Step {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  skip?: string;
  /** Returns an error message when the step cannot run. */
  check?: () => string | undefined;
}

const steps: Step[] = [
  {
    name: "vitest",
    command: bin("vitest"),
    args: ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestJson}`],
  },
  {
    // The README's production path, exactly as written: `npm run build`, then `npm start`.
    name: "npm run build",
    command: "npm",
    args: ["run", "-s", "build"],
    skip: process.env.SKIP_BUILD === "1" ? "SKIP_BUILD=1" : undefined,
  },
  {
    name: "npm start",
    command: bin("tsx"),
    args: ["scripts/smoke.ts", "start"],
  },
  {
    name: "playwright",
    command: bin("playwright"),
    args: ["test"],
    env: { PLAYWRIGHT_JSON_OUTPUT_FILE: playwrightJson },
    check: () => {
      if (!fs.existsSync(chromium))
        return `Chromium not found at ${chromium}. Playwright cannot download browsers here; install Debian's chromium: apt-get install -y chromium (or set CHROMIUM_PATH).`;
      if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")))
        return "No production build in .next: run `npx next build` (or unset SKIP_BUILD).";
      return undefined;
    },
  },
  {
    // The README's quick start after `npm install`: `npm run dev` with its demo banner.
    name: "npm run dev",
    command: bin("tsx"),
    args: ["scripts/smoke.ts", "dev"],
  },
];

let current: ChildProcess | undefined;
let stopping: NodeJS.Signals | undefined;

// Children run in their own process group and get a single SIGINT from here whatever stopped us:
// Playwright stops its web server on SIGINT, while SIGTERM would kill it and orphan the server.
function onSignal(signal: NodeJS.Signals) {
  const pid = current?.pid;
  if (stopping) {
    if (pid) kill(-pid, "SIGKILL");
    return;
  }
  stopping = signal;
  process.stderr.write(`\n[test] ${signal}: stopping\n`);
  if (!pid) process.exit(128 + (os.constants.signals[signal] ?? 0));
  kill(-pid, "SIGINT");
  setTimeout(() => kill(-pid, "SIGKILL"), 30_000).unref();
}

function kill(target: number, signal: NodeJS.Signals) {
  try {
    process.kill(target, signal);
  } catch {
    // already gone
  }
}

for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, () => onSignal(s));

function run(step: Step): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      detached: true,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...step.env },
    });
    current = child;
    child.on("error", (err) => {
      process.stderr.write(`[test] could not start ${step.command}: ${err.message} (run npm install)\n`);
      resolve(127);
    });
    child.on("exit", (code, signal) => {
      current = undefined;
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

/** Test counts from the runners' JSON reports, for one closing line over both runners. */
function tally() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let seen = false;
  const v = readJson(vitestJson);
  if (v) {
    seen = true;
    passed += v.numPassedTests ?? 0;
    failed += v.numFailedTests ?? 0;
    skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
  }
  const p = readJson(playwrightJson)?.stats;
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
  for (const [i, step] of steps.entries()) {
    const header = `[test] ${i + 1}/${steps.length} ${step.name}`;
    if (step.skip) {
      process.stderr.write(`\n${header}: skipped (${step.skip})\n`);
      done.push(`${step.name} skipped`);
      continue;
    }
    const problem = step.check?.();
    if (problem) {
      process.stderr.write(`\n${header}: cannot run\n[test] ${problem}\n`);
      done.push(`${step.name} not run`);
      exitCode = 1;
      break;
    }
    process.stderr.write(`\n${header}: ${path.relative(root, step.command)} ${step.args.join(" ")}\n`);
    const t0 = Date.now();
    const code = await run(step);
    done.push(`${step.name} ${seconds(Date.now() - t0)}${code === 0 ? "" : ` FAILED (exit ${code})`}`);
    if (code !== 0 || stopping) {
      exitCode = stopping ? 128 + (os.constants.signals[stopping] ?? 0) : code;
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
