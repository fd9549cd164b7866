import autocannon from "autocannon";
import { childProcesses } from "./proc";

export interface RollingRestart {
  requests: number;
  /** Connection errors, timeouts and non-2xx answers while the workers were replaced. */
  failed: number;
  /** Every worker that was serving when SIGHUP came had been replaced when the run ended. */
  replaced: boolean;
  /** From SIGHUP until the last old worker had gone. */
  restartMs: number;
}

const CONNECTIONS = 20;
const GIVE_UP_MS = 120_000;

/**
 * Steady load on a cluster's primary (`primaryPid`) while SIGHUP makes it replace its workers one at
 * a time; the load stops a second after the last old worker has gone, so every request of the
 * restart is counted.
 */
export async function rollingRestart(opts: autocannon.Options, primaryPid: number): Promise<RollingRestart> {
  const before = childProcesses(primaryPid).map((c) => c.pid);
  if (before.length === 0) throw new Error("rolling restart: the server has no workers to replace");
  let result: autocannon.Result | undefined;
  const done = new Promise<void>((resolve, reject) => {
    const instance = autocannon({ ...opts, connections: CONNECTIONS, duration: GIVE_UP_MS / 1000 }, (err, r) => {
      if (err) return reject(err);
      result = r;
      resolve();
    });
    void (async () => {
      await sleep(1000);
      const sent = Date.now();
      process.kill(primaryPid, "SIGHUP");
      while (Date.now() - sent < GIVE_UP_MS) {
        await sleep(200);
        const now = childProcesses(primaryPid).map((c) => c.pid);
        if (before.every((p) => !now.includes(p)) && now.length >= before.length) {
          restartMs = Date.now() - sent;
          break;
        }
      }
      await sleep(1000);
      instance.stop();
    })();
  });
  let restartMs = -1;
  await done;
  const r = result!;
  return { requests: r.requests.total, failed: r.errors + r.timeouts + r.non2xx, replaced: restartMs >= 0, restartMs };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
