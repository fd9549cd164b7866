import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Parakh runs either from its TypeScript sources through tsx (`npm run dev`, the CLI before a build,
 * scripts) or from the bundle `npm run build` writes (`npm start`; see scripts/build-server.ts). The
 * bundle's first lines say where it is and where the project root is; the sources know both from
 * their own place in the tree.
 */
interface BundleFacts {
  /** The folder holding server.mjs, cli.mjs and one .mjs file per thread entry. */
  dir: string;
  root: string;
}

const bundle = (globalThis as { __parakhBundle?: BundleFacts }).__parakhBundle;

/** The project root: where package.json and `.env` live. */
export const PROJECT_ROOT = bundle ? bundle.root : path.resolve(__dirname, "../../..");

/**
 * What a `new Worker(source, { eval: true })` evaluates to run one of the thread entries, given the
 * entry's source file (absolute). From the bundle: the entry's own bundle beside it. From the sources:
 * the file itself through tsx's require hook (a thread does not get `--import tsx` in time).
 */
export function threadEntrySource(sourceFile: string): string {
  if (bundle) {
    const built = path.join(bundle.dir, `${path.basename(sourceFile, ".ts")}.mjs`);
    return `import(${JSON.stringify(pathToFileURL(built).href)}).catch((err) => { process.nextTick(() => { throw err; }); });`;
  }
  return `require("tsx/cjs"); require(${JSON.stringify(sourceFile)});`;
}

/** True in the bundle named `name` (e.g. "cli") when it is the program node was started with. */
export function isBundleEntry(name: string): boolean {
  return bundle !== undefined && process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.join(bundle.dir, `${name}.mjs`);
}
