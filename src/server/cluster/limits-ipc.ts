import type { Admission, CallEnd, GateSettings, GateView } from "@/server/providers/upstream/gate";
import type { Grant, LimitStore, WindowCount } from "@/server/services/limits/shared";

/**
 * The server-wide limits over the cluster's IPC channel: workers ask, the primary answers from its
 * one LocalLimitStore. One small JSON message each way per question; tokens for the per-key rate
 * limit are leased in batches (see RateLimiter), so most requests send none. A live upstream call
 * asks once to be let through its family's gate and tells once how it ended (no answer awaited).
 */

type LimitRequest =
  | { op: "grant"; key: string; want: number; rate: number }
  | { op: "giveBack"; key: string; n: number; rate: number }
  | { op: "count"; key: string; windowMs: number; max: number | null }
  | { op: "release"; key: string }
  | { op: "admit"; key: string; settings: GateSettings }
  | { op: "end"; key: string; trial: boolean; how: CallEnd }
  | { op: "views" };

type LimitAnswer = Grant | WindowCount | Admission | GateView[];

interface LimitMessage {
  parakh: "limits";
  /** Present when the worker waits for the answer. */
  id?: number;
  req?: LimitRequest;
  res?: LimitAnswer;
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
  private readonly waiting = new Map<number, { resolve: (v: any) => void; fallback: LimitAnswer }>();
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

  private ask<T extends LimitAnswer>(req: LimitRequest, fallback: T): Promise<T> {
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
  admit(key: string, settings: GateSettings): Promise<Admission> {
    return this.ask<Admission>({ op: "admit", key, settings }, { admitted: false, reason: "full", retryAfterMs: 1000 });
  }
  end(key: string, trial: boolean, how: CallEnd) {
    if (!this.closed) this.channel.send({ parakh: "limits", req: { op: "end", key, trial, how } } satisfies LimitMessage, ignore);
  }
  views(): Promise<GateView[]> {
    return this.ask<GateView[]>({ op: "views" }, []);
  }
}

/** The asking side went away (a worker or a page thread exited): what it held is given back. */
export interface Answering {
  close(): void;
}

/**
 * The answering side: the primary for its workers (from the cluster's store), or a process for its
 * page thread (from the process's store, which may itself ask the primary). It keeps count of the
 * upstream calls it let through that have not ended, so that when the other side dies with calls in
 * flight, `close()` ends them: their bulkhead slots come back, and a trial call they held no longer
 * keeps every other call out.
 */
export function answerLimits(channel: Channel, store: LimitStore): Answering {
  /** Per family: calls let through and not yet ended, and how many of them are trial calls. */
  const open = new Map<string, { calls: number; trials: number }>();
  let closed = false;
  const opened = (key: string, trial: boolean) => {
    // Let through after the other side was gone: nobody will end it.
    if (closed) return store.end(key, trial, "abandoned");
    const held = open.get(key) ?? { calls: 0, trials: 0 };
    held.calls++;
    if (trial) held.trials++;
    open.set(key, held);
  };
  const ended = (key: string, trial: boolean): boolean => {
    const held = open.get(key);
    if (!held) return false;
    held.calls--;
    if (trial) held.trials--;
    if (held.calls <= 0) open.delete(key);
    return true;
  };
  channel.on("message", (m) => {
    if (!isLimitMessage(m) || !m.req) return;
    const req = m.req;
    // Only a call this side let through, and only once (close() may have ended it already).
    if (req.op === "end" && !ended(req.key, req.trial)) return;
    const id = m.id;
    const res = answer(store, req);
    if (id === undefined || !res) return;
    const reply = (value: LimitAnswer) => {
      if (req.op === "admit" && (value as Admission).admitted) opened(req.key, (value as { trial: boolean }).trial);
      channel.send({ parakh: "limits", id, res: value } satisfies LimitMessage, ignore);
    };
    if (res instanceof Promise) void res.then(reply);
    else reply(res);
  });
  return {
    close() {
      if (closed) return;
      closed = true;
      for (const [key, held] of open) {
        for (let i = 0; i < held.calls; i++) store.end(key, i < held.trials, "abandoned");
      }
      open.clear();
    },
  };
}

function answer(store: LimitStore, req: LimitRequest): LimitAnswer | Promise<LimitAnswer> | undefined {
  switch (req.op) {
    case "grant":
      return store.grant(req.key, req.want, req.rate);
    case "giveBack":
      return void store.giveBack(req.key, req.n, req.rate);
    case "count":
      return store.count(req.key, req.windowMs, req.max);
    case "release":
      return void store.release(req.key);
    case "admit":
      return store.admit(req.key, req.settings);
    case "end":
      return void store.end(req.key, req.trial, req.how);
    case "views":
      return store.views();
  }
}
