import fs from "node:fs";
import os from "node:os";

/**
 * Where the system allows it (Linux), the calling worker thread yields the CPU to the event loop's
 * thread, which answers everyone: its background work waits while a request is being served.
 */
export function lowerThisThreadsPriority() {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + 10));
  } catch {
    // No per-thread priority here: the thread runs at the process's.
  }
}
