import { EventEmitter } from "node:events";
import type http from "node:http";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { Config } from "@/server/config";
import type { PageHandler } from "@/server/http/request-listener";

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;

/** Next, prepared to render pages: on the page thread in production, on the server's own thread in development. */
export async function loadNext(dev: boolean, config: Config): Promise<{ handler: PageHandler; upgrade: UpgradeHandler }> {
  const { default: next } = await import("next");
  // Next attaches its own 'upgrade' listener to the server of the first request it handles, and
  // leaves every upgrade it does not recognise open for good. It gets an inert emitter instead:
  // the server decides what an Upgrade request means (see configureServer in ./start.ts).
  const inert = new EventEmitter() as unknown as http.Server;
  const app = next({ dev, dir: path.resolve(process.cwd()), hostname: config.host, port: config.port, httpServer: inert });
  await app.prepare();
  return { handler: app.getRequestHandler(), upgrade: app.getUpgradeHandler() };
}
