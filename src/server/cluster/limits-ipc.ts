import type { Grant, LimitStore, WindowCount } from "@/server/services/limits/shared";

/**
 * The server-wide limits over the cluster's IPC channel: workers ask, the primary answers from its
 * one LocalLimitStore. One small JSON message each way per question; tokens for the per-key rate
 * limit are leased in batches (see RateLimiter), so most requests send none.
 */

type LimitRequest =
  | { op: "grant"; key: string; want: number; rate: number }
  | { op: "giveBack"; key: string; n: number; rate: number }
  | { op: "count"; key: string; windowMs: number; max: number | null }
  | { op: "release"; key: string };

interface LimitMessage {
  parakh: "limits";
  /** Present when the worker waits for the answer. */
  id?: number;
  req?: LimitRequest;
  res?: Grant | WindowCount;
}

/** The end of an IPC channel: a worker's `process`, or the primary's `Worker`. */
export interface Channel {
  send(message: unknown, callback: (err: Error | null) => void): unknown;
  on(event: "message", listener: (message: unknown) => void): unknown;
}

function isLimitMessage(m: unknown): m is LimitMessage {
  return typeof m === "object" && m !== null && (m as LimitMessage).parakh === "limits";
}

const ignore = () => {};

/** A worker's store: every question goes to the primary. */
export class IpcLimitStore implements LimitStore {
  readonly remote = true;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: any) => void; fallback: Grant | WindowCount }>();
  private closed = false;

  constructor(private readonly channel: Channel) {
    channel.on("message", (m) => {
      if (!isLimitMessage(m) || m.id === undefined || !m.res) return;
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      w?.resolve(m.res);
    });
  }

  /**
   * The primary is gone (the worker is on its way out): what is still waiting, and every later
   * question, is answered "no" — a limit that cannot be counted refuses rather than waves through.
   */
  close() {
    this.closed = true;
    for (const w of this.waiting.values()) w.resolve(w.fallback);
    this.waiting.clear();
  }

  private ask<T extends Grant | WindowCount>(req: LimitRequest, fallback: T): Promise<T> {
    if (this.closed) return Promise.resolve(fallback);
    const id = this.nextId++;
    return new Promise<T>((resolve) => {
      this.waiting.set(id, { resolve, fallback });
      this.channel.send({ parakh: "limits", id, req } satisfies LimitMessage, (err) => {
        if (!err) return;
        this.waiting.delete(id);
        resolve(fallback);
      });
    });
  }

  grant(key: string, want: number, rate: number): Promise<Grant> {
    return this.ask({ op: "grant", key, want, rate }, { granted: 0, waitMs: 1000 });
  }
  giveBack(key: string, n: number, rate: number) {
    if (!this.closed) this.channel.send({ parakh: "limits", req: { op: "giveBack", key, n, rate } } satisfies LimitMessage, ignore);
  }
  count(key: string, windowMs: number, max: number | null): Promise<WindowCount> {
    return this.ask({ op: "count", key, windowMs, max }, { ok: false, count: Number.MAX_SAFE_INTEGER, resetAt: Date.now() + windowMs });
  }
  release(key: string) {
    if (!this.closed) this.channel.send({ parakh: "limits", req: { op: "release", key } } satisfies LimitMessage, ignore);
  }
}

/**
 * The answering side: the primary for its workers (from the cluster's store), or a process for its
 * page thread (from the process's store, which may itself ask the primary).
 */
export function answerLimits(channel: Channel, store: LimitStore) {
  channel.on("message", (m) => {
    if (!isLimitMessage(m) || !m.req) return;
    const id = m.id;
    const res = answer(store, m.req);
    if (id === undefined || !res) return;
    const reply = (value: Grant | WindowCount) => channel.send({ parakh: "limits", id, res: value } satisfies LimitMessage, ignore);
    if (res instanceof Promise) void res.then(reply);
    else reply(res);
  });
}

function answer(store: LimitStore, req: LimitRequest): Grant | WindowCount | Promise<Grant | WindowCount> | undefined {
  switch (req.op) {
    case "grant":
      return store.grant(req.key, req.want, req.rate);
    case "giveBack":
      return void store.giveBack(req.key, req.n, req.rate);
    case "count":
      return store.count(req.key, req.windowMs, req.max);
    case "release":
      return void store.release(req.key);
  }
}
