import { parentPort } from "node:worker_threads";
import { lowerThisThreadsPriority } from "@/server/lib/thread-priority";
import { sandboxProviders, type ProviderSet } from "@/server/providers";
import { runChunkPass, type ChunkPassJob } from "./chunk-pass";
import type { ChunkThreadReply } from "./chunk-thread";

lowerThisThreadsPriority();

/** Nothing else runs on this thread: items go to their fixtures without taking turns with requests. */
const providers: ProviderSet = { ...sandboxProviders, batchLane: (_family, call) => call() };

/** The batch chunk thread (see ./chunk-thread.ts): passes run one after another, each answered by its id. */
parentPort!.on("message", ({ id, job }: { id: number; job: ChunkPassJob }) => {
  runChunkPass(job, providers, Date.now, true).then(
    (pass) => parentPort!.postMessage({ id, pass } satisfies ChunkThreadReply),
    (err: unknown) => parentPort!.postMessage({ id, failure: err instanceof Error ? err.message : String(err) } satisfies ChunkThreadReply),
  );
});
