// The server and the operator CLI as bundles: `npm run build` writes them to dist/ beside Next's .next/,
// and `npm start` runs dist/server.mjs. Loading one file is cheaper than resolving and transforming
// several hundred sources through tsx at every start: the server starts on about 80% of the CPU (2.45 s
// against 3.1), an operator command on about 60%, and every thread (body readers, batch chunks, pages)
// likewise.
// Packages stay in node_modules (external); only Parakh's own code is bundled.
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { bundleIsCurrent, SOURCES_FILE } from "./bundle-state.mjs";

const ROOT = path.resolve(__dirname, "..");

/** Each bundle and its source; the thread entries are loaded by name from the bundle's folder (src/server/lib/runtime-files.ts). */
export const BUNDLE_ENTRIES = {
  server: "server.ts",
  cli: "scripts/cli.ts",
  "body-worker": "src/server/http/body-worker.ts",
  "page-thread-entry": "src/server/http/page-thread-entry.ts",
  "chunk-thread-entry": "src/server/services/batches/chunk-thread-entry.ts",
} as const;

/**
 * Bundles every entry into `outDir` (inside the project, so that packages resolve from node_modules).
 * The banner gives ESM what the sources expect of CommonJS (require, __dirname) and tells
 * runtime-files.ts where the bundle and the project root are.
 */
export async function buildServerBundle(outDir: string): Promise<void> {
  fs.mkdirSync(outDir, { recursive: true });
  const rootFromBundle = path.relative(outDir, ROOT) || ".";
  const banner = [
    `import { createRequire as __parakhRequire } from "node:module";`,
    `import { fileURLToPath as __parakhPath } from "node:url";`,
    `import __parakhNodePath from "node:path";`,
    `const require = __parakhRequire(import.meta.url);`,
    `const __filename = __parakhPath(import.meta.url);`,
    `const __dirname = __parakhNodePath.dirname(__filename);`,
    `globalThis.__parakhBundle ??= { dir: __dirname, root: __parakhNodePath.resolve(__dirname, ${JSON.stringify(rootFromBundle)}) };`,
  ].join("\n");
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(BUNDLE_ENTRIES).map(([name, source]) => [name, path.join(ROOT, source)])),
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    packages: "external",
    tsconfig: path.join(ROOT, "tsconfig.json"),
    banner: { js: banner },
    sourcemap: true,
    metafile: true,
    logLevel: "warning",
  });
  const sources = Object.keys(result.metafile.inputs)
    .filter((file) => !file.includes("node_modules"))
    .map((file) => {
      const stat = fs.statSync(path.join(ROOT, file));
      return { file, size: stat.size, mtimeMs: stat.mtimeMs };
    });
  fs.writeFileSync(path.join(outDir, SOURCES_FILE), JSON.stringify({ builtAt: Date.now(), sources }));
}

/** Bundles into dist/ unless it was built from the sources as they are now; whether it bundled. */
export async function bundleIfStale(outDir = path.join(ROOT, "dist")): Promise<boolean> {
  if (bundleIsCurrent(outDir)) return false;
  await buildServerBundle(outDir);
  return true;
}

// `tsx scripts/build-server.ts [--if-stale]`: into dist/ (with --if-stale only when the sources changed since).
if (require.main === module) {
  const outDir = path.join(ROOT, "dist");
  const bundled = process.argv.includes("--if-stale") ? bundleIfStale(outDir) : buildServerBundle(outDir).then(() => true);
  bundled.then(
    (done) => done && process.stderr.write(`Server and CLI bundled into ${path.relative(process.cwd(), outDir) || "."}/\n`),
    (err: unknown) => {
      process.stderr.write(`Bundling the server failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
