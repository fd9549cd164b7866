// Whether dist/ holds a bundle built from the sources as they are now: scripts/build-server.ts records
// every source it bundled with its size and time; any change, addition to that list aside, makes it stale.
// Plain JavaScript, so that `npm run cli` can ask before anything is compiled.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SOURCES_FILE = "sources.json";

export function bundleIsCurrent(outDir = path.join(PROJECT_ROOT, "dist")) {
  let recorded;
  try {
    recorded = JSON.parse(fs.readFileSync(path.join(outDir, SOURCES_FILE), "utf8"));
  } catch {
    return false;
  }
  return recorded.sources.every(({ file, size, mtimeMs }) => {
    const stat = fs.statSync(path.join(PROJECT_ROOT, file), { throwIfNoEntry: false });
    return stat !== undefined && stat.size === size && stat.mtimeMs === mtimeMs;
  });
}
