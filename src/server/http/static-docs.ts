import fs from "node:fs";
import path from "node:path";
import type { ServerResponse } from "node:http";

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "application/javascript; charset=utf-8",
};

let dir: string | undefined;

function assetDir(): string {
  dir ??= path.dirname(require.resolve("swagger-ui-dist/package.json"));
  return dir;
}

/** Serves the API reference's static files (`/docs/assets/<name>`), from a fixed list only. */
export function serveDocsAsset(name: string, res: ServerResponse): boolean {
  const type = ASSETS[name];
  if (!type) return false;
  const file = path.join(assetDir(), name);
  res.statusCode = 200;
  res.setHeader("Content-Type", type);
  res.setHeader("Cache-Control", "public, max-age=86400");
  fs.createReadStream(file).pipe(res);
  return true;
}
