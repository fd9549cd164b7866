import type { UpstreamSnapshot } from "@/server/providers/upstream/peer";

/** What the server thread and its page thread tell each other, besides the limits (see ../cluster/limits-ipc.ts). */
export type PageThreadMessage =
  /** Page thread → server: Next is prepared and the thread listens. */
  | { parakh: "page-thread"; type: "ready" }
  /** Page thread → server: work was enqueued on this lane; the runners are on the server thread. */
  | { parakh: "page-thread"; type: "wake"; lane: string }
  /** Either way: the other side's upstream figures, asked and answered. */
  | { parakh: "page-thread"; type: "upstream?"; id: number }
  | { parakh: "page-thread"; type: "upstream"; id: number; snapshot: UpstreamSnapshot }
  /** Server → page thread: the server has drained; close and end. */
  | { parakh: "page-thread"; type: "stop" };

export function isPageThreadMessage(m: unknown): m is PageThreadMessage {
  return typeof m === "object" && m !== null && (m as PageThreadMessage).parakh === "page-thread";
}
