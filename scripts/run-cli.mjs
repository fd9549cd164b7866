// `npm run cli`: the operator CLI. It runs the bundle `npm run build` wrote (dist/cli.mjs) when that was
// built from the sources as they are now, which starts on about 60% of the CPU; otherwise (no build yet,
// or sources changed since) the sources themselves through tsx.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { bundleIsCurrent, PROJECT_ROOT } from "./bundle-state.mjs";

const { main } = bundleIsCurrent()
  ? await import(pathToFileURL(path.join(PROJECT_ROOT, "dist/cli.mjs")).href)
  : await (await import("tsx/esm/api")).tsImport(pathToFileURL(path.join(PROJECT_ROOT, "scripts/cli.ts")).href, import.meta.url);
main();
