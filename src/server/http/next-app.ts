import { EventEmitter } from "node:events";
import type http from "node:http";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import util from "node:util";
import type { Config } from "@/server/config";
import type { PageHandler } from "@/server/http/request-listener";
import { log } from "@/server/lib/logger";

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;

/** Next, prepared to render pages: on the page thread in production, on the server's own thread in development. */
export async function loadNext(dev: boolean, config: Config): Promise<{ handler: PageHandler; upgrade: UpgradeHandler }> {
  const { default: next } = await import("next");
  // Next attaches its own 'upgrade' listener to the server of the first request it handles, and
  // leaves every upgrade it does not recognise open for good. It gets an inert emitter instead:
  // the server decides what an Upgrade request means (see configureServer in ./start.ts).
  const inert = new EventEmitter() as unknown as http.Server;
  const app = next({ dev, dir: path.resolve(process.cwd()), hostname: config.host, port: config.port, httpServer: inert });
  await withNextLinesLogged(() => app.prepare());
  return { handler: app.getRequestHandler(), upgrade: app.getUpgradeHandler() };
}

/**
 * Next prints lines of its own on stdout while it loads ("✓ Running next.config.ts took 632ms"):
 * they become debug log lines, so stdout carries only what Parakh prints (the banner) and the log
 * stays one JSON object a line. Next's warnings and errors keep their own way (stderr).
 */
async function withNextLinesLogged<T>(work: () => Promise<T>): Promise<T> {
  const original = { log: console.log, info: console.info };
  console.log = console.info = (...args: unknown[]) => log.debug("next", { line: util.stripVTControlCharacters(util.format(...args)).trim() });
  try {
    return await work();
  } finally {
    console.log = original.log;
    console.info = original.info;
  }
}
