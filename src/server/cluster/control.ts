/** What the primary and its workers tell each other, besides the limits (see ./limits-ipc.ts). */
export type ControlMessage =
  /** Primary → worker. drain: a replacement is serving, finish gently; stop: the server is shutting down. */
  | { parakh: "control"; command: "drain" | "stop"; signal?: string }
  /** Worker → primary. ready: listening and its readiness check passes; draining: no longer accepting. */
  | { parakh: "control"; event: "ready" | "draining" };

export function isControl(m: unknown): m is ControlMessage {
  return typeof m === "object" && m !== null && (m as ControlMessage).parakh === "control";
}

/** The environment variable that gives a forked worker its slot (0 runs the background jobs). */
export const WORKER_SLOT_ENV = "PARAKH_WORKER_SLOT";

/** The environment variable that hands the primary's instance id to its workers. */
export const INSTANCE_ID_ENV = "PARAKH_INSTANCE_ID";

/**
 * This start of the server, as /api/ready names it: one id per started instance (a cluster's workers
 * share their primary's), so a rolling restart can tell a new process from the old one still answering.
 */
export function instanceId(): string {
  process.env[INSTANCE_ID_ENV] ??= `${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  return process.env[INSTANCE_ID_ENV];
}
