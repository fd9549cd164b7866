import { parentPort, threadId } from "node:worker_threads";
import { lowerThisThreadsPriority } from "@/server/lib/thread-priority";
import { readJsonBody } from "@/server/http/json-body";
import type { BodyJob } from "@/server/http/body-pool";

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
