/**
 * One HTTP exchange with an upstream vendor, and the deadline that bounds a whole call. The
 * resilience policies around it are in ./client.ts.
 */
import type { Dispatcher } from "undici";

/** What one HTTP exchange brought back, before it is classified. */
export interface RawAnswer {
  status: number;
  retryAfter: string | null;
  text: string;
}

/**
 * One call's deadline, over every attempt and the pauses between them. The exchange in flight
 * registers how to stop itself; the timer stops it when the time is up.
 */
export class Deadline {
  expired = false;
  private inFlight: { expire(): void } | null = null;
  private readonly timer: NodeJS.Timeout;
  constructor(ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.inFlight?.expire();
    }, ms);
  }
  watch(exchange: { expire(): void } | null): void {
    this.inFlight = exchange;
  }
  clear(): void {
    clearTimeout(this.timer);
  }
}

/** The body cap, and the failures an exchange ends with (built by the client, which knows the family's codes). */
export interface ExchangeLimits {
  maxBodyBytes: number;
  timedOut(): Error;
  tooLarge(): Error;
  /**
   * The connection failed before any answer; `sent`: after the request was handed to the connection
   * (the vendor may have read it), rather than while connecting.
   */
  unreachable(err: Error, sent: boolean): Error;
  /** The answer began and then failed. */
  brokeOff(err: Error): Error;
}

/** Sends the request and reads its answer within the deadline. */
export function exchange(dispatcher: Dispatcher, request: Dispatcher.DispatchOptions, deadline: Deadline, limits: ExchangeLimits): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    dispatcher.dispatch(request, new Exchange(limits, deadline, resolve, reject));
  });
}

/**
 * One HTTP exchange as undici's dispatch handler, rather than undici's `request` or fetch: no
 * AbortSignal, body stream, Headers object or closures per call, which were a third of the
 * adapter's CPU. Settles once: with the answer, or with the first failure (the deadline, a body
 * over the cap, a connection error). Redirects are not followed.
 */
class Exchange implements Dispatcher.DispatchHandlers {
  private settled = false;
  private abort: ((err?: Error) => void) | null = null;
  /** undici calls onConnect on a connected socket just before it writes the request. */
  private sent = false;
  private answered = false;
  private status = 0;
  private retryAfter: string | null = null;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly limits: ExchangeLimits,
    private readonly deadline: Deadline,
    private readonly resolve: (answer: RawAnswer) => void,
    private readonly reject: (err: Error) => void,
  ) {
    deadline.watch(this);
  }

  /** The deadline passed. */
  expire(): void {
    this.stop(this.limits.timedOut());
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    this.sent = true;
    // The deadline passed while connecting.
    if (this.settled) abort();
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    if (statusCode < 200) return true;
    this.answered = true;
    this.status = statusCode;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      // Only two headers matter; their lengths pick them out before any string is made.
      if (name.length === 11 && name.toString("latin1").toLowerCase() === "retry-after") this.retryAfter = raw[i + 1]!.toString("latin1");
      else if (
        name.length === 14 &&
        name.toString("latin1").toLowerCase() === "content-length" &&
        Number(raw[i + 1]!.toString("latin1")) > this.limits.maxBodyBytes
      ) {
        this.stop(this.limits.tooLarge());
        return false;
      }
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.bytes += chunk.byteLength;
    if (this.bytes > this.limits.maxBodyBytes) {
      this.stop(this.limits.tooLarge());
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    this.deadline.watch(null);
    const text = this.chunks.length === 1 ? this.chunks[0]!.toString("utf8") : Buffer.concat(this.chunks).toString("utf8");
    this.resolve({ status: this.status, retryAfter: this.retryAfter, text });
  }

  onError(err: Error): void {
    this.fail(this.answered ? this.limits.brokeOff(err) : this.limits.unreachable(err, this.sent));
  }

  private fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.deadline.watch(null);
    this.reject(err);
  }

  /** Ends the exchange from Parakh's side: the connection is dropped, nothing more is read. */
  private stop(err: Error): void {
    this.fail(err);
    this.abort?.();
  }
}
