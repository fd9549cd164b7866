import crypto from "node:crypto";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `npm test` asks for a JSON report beside the console one, to print one closing tally.
const jsonReport = process.env.VITEST_JSON_REPORT;

// Every server the integration run starts gets these keys, and so does the run itself: fixtures
// such as operator commands then run in the test process against a server's database (a CLI
// process per call cost seconds of CPU each). Tests of generated keys start servers without them.
const runKeys = {
  ENCRYPTION_KEY: crypto.randomBytes(32).toString("base64"),
  HASH_KEY: crypto.randomBytes(32).toString("base64"),
  NEXTAUTH_SECRET: crypto.randomBytes(32).toString("base64url"),
};

// Password hashes at scrypt's lowest allowed cost (N = 2^12, about 8× cheaper than the default 2^15):
// the suites sign up and sign in thousands of times, and at the default cost that was a tenth of their
// CPU. tests/unit/crypto.test.ts holds the default cost and hashes made at it.
const cheapPasswords = { PASSWORD_HASH_COST: "12" };

// Integration files that set the environment before importing the app, or replace modules and timers,
// need a process of their own; the rest share their worker's loaded modules with the files before them
// (a file's imports took about 2.4 s of a worker's CPU).
const integrationFiles = fs.readdirSync("tests/integration").filter((f) => f.endsWith(".test.ts"));
const ownProcess = integrationFiles.filter((f) =>
  /^process\.env\.|vi\.(mock|doMock|spyOn|stubEnv|stubGlobal|useFakeTimers)\(/m.test(fs.readFileSync(`tests/integration/${f}`, "utf8")),
);
const isolated = ownProcess.map((f) => `tests/integration/${f}`);

// What both integration projects share (they differ in which files they take and whether each file
// gets a process of its own).
const integration = {
  // One throwaway PostgreSQL cluster for the run (each file creates its own databases on it),
  // and migrated databases to copy.
  globalSetup: ["tests/helpers/integration-global-setup.ts"],
  environment: "node",
  testTimeout: 60_000,
  hookTimeout: 180_000,
  // Two files at a time: most of their time is spent waiting on servers, CLIs and clocks, and
  // each file has its own server, database and ports. (Measured: 6 min → under 4 on 2 cores.)
  fileParallelism: true,
  maxWorkers: 2,
  // Run after the unit project when both are started together (`vitest run`).
  sequence: { groupOrder: 1 },
  // Suites sign up many merchants from one address; the limit has a test of its own.
  env: { SIGNUPS_PER_ADDRESS_PER_HOUR: "10000", ...runKeys, ...cheapPasswords },
};

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  test: {
    reporters: jsonReport ? ["default", ["json", { outputFile: jsonReport }]] : ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          // `npm test` runs these beside lint, the type check and the build on two cores: a test that
          // takes 0.5 s alone can take several then. Limits are for hangs, not for speed.
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env: { ...cheapPasswords },
        },
      },
      { extends: true, test: { name: "integration", include: isolated, ...integration } },
      { extends: true, test: { name: "integration-shared", include: ["tests/integration/**/*.test.ts"], exclude: isolated, isolate: false, ...integration } },
      {
        extends: true,
        test: {
          // `npm run fuzz`: requests generated from the API document against real servers (FUZZ_SECONDS per database).
          name: "fuzz",
          include: ["tests/fuzz/**/*.test.ts"],
          globalSetup: ["tests/helpers/integration-global-setup.ts"],
          environment: "node",
          hookTimeout: 180_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
          env: { ...runKeys, ...cheapPasswords },
        },
      },
    ],
  },
});
