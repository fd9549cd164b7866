import fs from "node:fs";
import os from "node:os";
import { parentPort, threadId } from "node:worker_threads";
import { readJsonBody } from "@/server/rest/json-body";
import type { BodyJob } from "@/server/rest/body-pool";

/** Where the system allows it (Linux), this thread yields the CPU to the event loop's, which answers everyone. */
function lowerThisThreadsPriority() {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + 10));
  } catch {
    // No per-thread priority here: the thread runs at the process's.
  }
}

lowerThisThreadsPriority();

/** A body-reading thread of the REST door (see ./body-pool.ts): one job at a time, answered in order. */
parentPort!.on("message", (job: BodyJob) => {
  const raw = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  try {
    parentPort!.postMessage({ id: job.id, read: readJsonBody(raw, job.batchKind, job.chunkSize), threadId });
  } catch (err) {
    parentPort!.postMessage({ id: job.id, failure: err instanceof Error ? err.message : String(err) });
  }
});
