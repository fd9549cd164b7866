/**
 * This process's runners by lane, so code that just enqueued work can have it claimed at once
 * instead of at the runner's next poll (up to pollMs later). Other instances still find the work
 * by polling. Kept on globalThis: Next bundles its own copy of server modules, and a batch
 * submitted from the dashboard must wake the runners the server started.
 */

/**
 * The runner a job runs on: webhook deliveries and batches have their own, so payment expiry,
 * attempt timeouts and refunds never wait behind a slow receiver or a big batch.
 */
export type JobLane = "main" | "deliveries" | "batches";

interface Pokeable {
  poke(): void;
}

const KEY = Symbol.for("parakh.jobs.wake");
const FORWARD_KEY = Symbol.for("parakh.jobs.wake-forward");
type Hub = Map<JobLane, Set<WeakRef<Pokeable>>>;
type Holder = { [KEY]?: Hub; [FORWARD_KEY]?: (lane: JobLane) => void };

function hub(): Hub {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= new Map());
}

/** Where this thread's wakes go besides its own runners: the page thread sends them to the server's. */
export function forwardWakes(to: (lane: JobLane) => void): void {
  (globalThis as Holder)[FORWARD_KEY] = to;
}

/** Lets `wakeLane(lane)` poke `runner` for as long as it exists. */
export function wakeOnEnqueue(lane: JobLane, runner: Pokeable): void {
  const runners = hub().get(lane) ?? new Set();
  runners.add(new WeakRef(runner));
  hub().set(lane, runners);
}

/** Pokes this process's runners of `lane` (a stopped runner ignores it). Call after the enqueuing commit. */
export function wakeLane(lane: JobLane): void {
  (globalThis as Holder)[FORWARD_KEY]?.(lane);
  const runners = hub().get(lane);
  if (!runners) return;
  for (const ref of runners) {
    const runner = ref.deref();
    if (runner) runner.poke();
    else runners.delete(ref);
  }
}
