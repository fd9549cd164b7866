import cluster from "node:cluster";
import { installSharedLimits } from "@/server/services/limits/shared";
import { isControl, WORKER_SLOT_ENV } from "./control";
import { IpcLimitStore, type Channel } from "./limits-ipc";

/** This process's slot when it is a cluster worker, else null. */
export function workerSlot(): number | null {
  return cluster.isWorker ? Number(process.env[WORKER_SLOT_ENV] ?? 0) : null;
}

// process.send without a callback reports a closed channel as an 'error' event, which would end the process.
const channel: Channel = {
  send: (message, callback) => process.send!(message, undefined, undefined, callback),
  on: (event, listener) => process.on(event, listener),
};

export interface PrimaryCommands {
  drain(): void;
  stop(reason: string): void;
}

let commands: PrimaryCommands | undefined;
let early: (() => void) | undefined;

/**
 * A worker's first step, before any service exists: its limits count in the primary, and the
 * primary's commands are heard (one that arrives before the server runs waits for it).
 */
export function joinCluster() {
  const store = new IpcLimitStore(channel);
  installSharedLimits(store);
  process.on("message", (m) => {
    if (!isControl(m) || !("command" in m)) return;
    const run = () => (m.command === "drain" ? commands!.drain() : commands!.stop(m.signal ?? "stop"));
    if (commands) run();
    else early = run;
  });
  // Replacing workers is the primary's job: a SIGHUP sent to the whole process group must not end this one.
  process.on("SIGHUP", () => {});
  // The primary is gone (killed, or crashed): nobody will restart this worker or count its limits.
  process.on("disconnect", () => {
    store.close();
    const run = () => commands!.stop("primary gone");
    if (commands) run();
    else early = run;
  });
}

/** The server runs: the primary's commands reach it from now on. */
export function obeyPrimary(handlers: PrimaryCommands) {
  commands = handlers;
  early?.();
}

export function tellPrimary(event: "ready" | "draining") {
  if (process.connected) process.send!({ parakh: "control", event }, undefined, undefined, () => {});
}
