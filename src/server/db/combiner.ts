/**
 * Writes to one hot row, combined: while one write for a key (a wallet, say) is in flight, the
 * requests that arrive for that key wait and then go together, as one write, when it is done. The
 * row is then locked once per group rather than once per request, and a lone request goes at once.
 * `runGroup` answers each request of a group, in order; it must be all-or-nothing (one statement or
 * one transaction), because when it fails for a group of several, each request is run again alone
 * and gets its own answer or error (one bad request never fails the others).
 */
export class KeyedCombiner<Req, Res> {
  private readonly waiting = new Map<string, Pending<Req, Res>[]>();

  constructor(
    private readonly runGroup: (key: string, requests: Req[]) => Promise<Res[]>,
    private readonly maxGroup = 500,
  ) {}

  submit(key: string, request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const pending = { request, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push(pending);
        return;
      }
      // Nothing in flight for the key: this request goes now, and later ones queue behind it.
      this.waiting.set(key, []);
      void this.run(key, [pending]);
    });
  }

  private async run(key: string, group: Pending<Req, Res>[]): Promise<void> {
    try {
      const results = await this.runGroup(
        key,
        group.map((p) => p.request),
      );
      group.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      await afterGroupFailed(group, err, (request) => this.runGroup(key, [request]));
    }
    const queue = this.waiting.get(key)!;
    if (queue.length === 0) {
      this.waiting.delete(key);
      return;
    }
    void this.run(key, queue.splice(0, this.maxGroup));
  }
}

interface Pending<Req, Res> {
  request: Req;
  resolve: (v: Res) => void;
  reject: (e: unknown) => void;
}

/** A group's write failed: a lone request gets the error; in a group of several, each runs again alone. */
function afterGroupFailed<Req, Res>(group: Pending<Req, Res>[], err: unknown, runAlone: (request: Req) => Promise<Res[]>): Promise<void> {
  if (group.length === 1) {
    group[0]!.reject(err);
    return Promise.resolve();
  }
  return Promise.all(group.map((p) => runAlone(p.request).then((r) => p.resolve(r[0]!), p.reject))).then(() => undefined);
}

/**
 * For a writer that queues writes and runs them later, together (SQLite's group commit): requests
 * for a key join the group whose write has not started yet, and the write takes the ones gathered
 * when it starts (`take`, called once, first thing in the write). A lone request is one write as it
 * would be anyway, and none waits for a later commit than it would have alone. Failures as above.
 */
export class JoiningCombiner<Req, Res> {
  private readonly open = new Map<string, Pending<Req, Res>[]>();

  constructor(private readonly runGroup: (key: string, take: () => Req[]) => Promise<Res[]>) {}

  submit(key: string, request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const pending = { request, resolve, reject };
      const joined = this.open.get(key);
      if (joined) {
        joined.push(pending);
        return;
      }
      const group = [pending];
      this.open.set(key, group);
      const close = () => {
        if (this.open.get(key) === group) this.open.delete(key);
      };
      const take = () => {
        close();
        return group.map((p) => p.request);
      };
      void this.runGroup(key, take).then(
        (results) => {
          close();
          group.forEach((p, i) => p.resolve(results[i]!));
        },
        (err: unknown) => {
          close();
          void afterGroupFailed(group, err, (request) => this.runGroup(key, () => [request]));
        },
      );
    });
  }
}
