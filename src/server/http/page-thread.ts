/**
 * The Next pages (checkout, dashboard, sign-in, docs) run on a thread of their own in production.
 * Next turns on AsyncLocalStorage, which on Node 20 hooks every promise of its thread, and it
 * replaces the global Date, setImmediate and fetch; on the API's thread that cost every API request
 * about a third more CPU. The server's thread still receives every request and applies its checks
 * (page-guard, security headers, client address), then hands page requests to the thread over a
 * Unix socket in a folder only this user can open.
 *
 * What must stay one per process crosses as messages: the limits (counted in the server thread's
 * store, itself the primary's in a cluster), job wakes (the runners live on the server thread) and
 * each side's upstream figures (for the metrics scrape and the operator console).
 */
import fs from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { answerLimits, type Channel } from "@/server/cluster/limits-ipc";
import { restartDelay } from "@/server/cluster/primary";
import { AppError } from "@/server/errors";
import { errorPayload } from "@/server/http/error-response";
import type { JobLane } from "@/server/jobs/wake";
import { wakeLane } from "@/server/jobs/wake";
import { log } from "@/server/lib/logger";
import { threadEntrySource } from "@/server/lib/runtime-files";
import { localUpstreamSnapshot, setUpstreamPeer, type UpstreamSnapshot } from "@/server/providers/upstream/peer";
import { sharedLimits } from "@/server/services/limits/shared";
import { isPageThreadMessage, type PageThreadMessage } from "./page-thread-messages";

const THREAD_SOURCE = threadEntrySource(path.join(__dirname, "page-thread-entry.ts"));
/** Headers that describe one connection, not the request or answer: never passed through. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-authenticate",
  "proxy-authorization",
]);
const PEER_TIMEOUT_MS = 2000;
const RETRY_AFTER_SECONDS = 5;

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const named = (headers.connection ?? "").split(",").map((h) => h.trim().toLowerCase());
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !named.includes(k)) out[k] = v;
  return out;
}

const starting = () =>
  new AppError("SERVICE_UNAVAILABLE", "The pages are starting; retry after the time in Retry-After.", { retryAfterSeconds: RETRY_AFTER_SECONDS });

function sendError(res: ServerResponse, err: AppError | "INTERNAL_ERROR") {
  const { status, body, headers } = errorPayload(err, String(res.getHeader("X-Request-Id") ?? ""));
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-store");
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(JSON.stringify(body));
}

export class PageThread {
  private worker: Worker | undefined;
  private ready = false;
  private stopping = false;
  private restarts = 0;
  private nextAsk = 1;
  private readonly asks = new Map<number, (snapshot: UpstreamSnapshot) => void>();
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-pages-"));
  private readonly socketPath = path.join(this.dir, "pages.sock");
  // Page answers stream; a few sockets stay open between them.
  private readonly agent = new http.Agent({ keepAlive: true, maxFreeSockets: 16 });
  private firstReady: { resolve: () => void; reject: (err: Error) => void } | undefined;

  /** Starts the thread; resolves once Next is prepared and the thread listens. */
  start(): Promise<void> {
    setUpstreamPeer(() => this.askUpstream());
    return new Promise((resolve, reject) => {
      this.firstReady = { resolve, reject };
      this.spawn();
    });
  }

  private spawn() {
    this.ready = false;
    fs.rmSync(this.socketPath, { force: true });
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { socketPath: this.socketPath } });
    this.worker = worker;
    const channel: Channel = {
      send: (message, callback) => {
        worker.postMessage(message);
        callback(null);
      },
      on: (event, listener) => worker.on(event, listener),
    };
    const answering = answerLimits(channel, sharedLimits());
    worker.on("message", (m: unknown) => this.hear(m));
    worker.on("error", (err) => log.error("the page thread failed", { err }));
    worker.on("exit", (code) => {
      // Its upstream calls in flight ended with it.
      answering.close();
      this.exited(worker, code);
    });
  }

  private hear(m: unknown) {
    if (!isPageThreadMessage(m)) return;
    const message: PageThreadMessage = m;
    switch (message.type) {
      case "ready":
        this.ready = true;
        this.restarts = 0;
        this.firstReady?.resolve();
        this.firstReady = undefined;
        return;
      case "wake":
        return wakeLane(message.lane as JobLane);
      case "upstream?":
        return this.worker?.postMessage({
          parakh: "page-thread",
          type: "upstream",
          id: message.id,
          snapshot: localUpstreamSnapshot(),
        } satisfies PageThreadMessage);
      case "upstream":
        this.asks.get(message.id)?.(message.snapshot);
        this.asks.delete(message.id);
        return;
    }
  }

  private exited(worker: Worker, code: number) {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = false;
    if (this.stopping) return;
    if (this.firstReady) {
      this.firstReady.reject(new Error(`the page thread exited with code ${code} before it was ready`));
      this.firstReady = undefined;
      return;
    }
    // The cluster's rule for a crashed worker: 250 ms, doubling per crash in a row, at most 30 s.
    const delay = restartDelay(++this.restarts);
    log.error("the page thread exited; restarting it", { code, inMs: delay });
    setTimeout(() => !this.stopping && this.spawn(), delay).unref();
  }

  /** The page thread's upstream figures (for this thread's metrics scrape). */
  private askUpstream(): Promise<UpstreamSnapshot> {
    const worker = this.worker;
    if (!worker || !this.ready) return Promise.reject(new Error("the page thread is not running"));
    const id = this.nextAsk++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.asks.delete(id);
        reject(new Error("the page thread did not answer"));
      }, PEER_TIMEOUT_MS);
      this.asks.set(id, (snapshot) => {
        clearTimeout(timer);
        resolve(snapshot);
      });
      worker.postMessage({ parakh: "page-thread", type: "upstream?", id } satisfies PageThreadMessage);
    });
  }

  /** Hands a page request to the thread and streams its answer back; 503 while the thread is (re)starting. */
  readonly handler = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!this.ready) {
      sendError(res, starting());
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let clientGone = false;
      const upstream = http.request(
        { socketPath: this.socketPath, agent: this.agent, method: req.method, path: req.url, headers: withoutHopByHop(req.headers) },
        (answer) => {
          res.statusCode = answer.statusCode ?? 502;
          for (const [k, v] of Object.entries(withoutHopByHop(answer.headers))) if (v !== undefined) res.setHeader(k, v);
          answer.pipe(res);
          answer.on("error", () => res.destroy());
          res.on("close", resolve);
        },
      );
      // Before the answer began: the thread went away (503, it restarts) or the page failed (500, logged there).
      upstream.on("error", (err) => {
        if (res.headersSent || clientGone) res.destroy();
        else if (!this.ready) sendError(res, starting());
        else {
          log.warn("a page request failed in the page thread", { err });
          sendError(res, "INTERNAL_ERROR");
        }
        resolve();
      });
      // The client went away: so does the thread's work on its request (no error to log or answer).
      res.on("close", () => {
        if (res.writableFinished) return;
        clientGone = true;
        upstream.destroy();
      });
      req.pipe(upstream);
    });
  };

  /** Ends the thread once the server has drained its page requests. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    setUpstreamPeer(undefined);
    this.agent.destroy();
    const worker = this.worker;
    if (worker) {
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage({ parakh: "page-thread", type: "stop" } satisfies PageThreadMessage);
      const timer = setTimeout(() => void worker.terminate(), timeoutMs);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
