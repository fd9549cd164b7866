// Two Prisma clients (and two batch stores) on one database stand for two instances: their claims
// and commits race as they would across processes.
import type { BatchStore } from "@/server/db/batch-store";
import type { Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { openTestDatabase } from "./test-db";

export interface TwoInstances {
  url: string;
  dbA: Db;
  dbB: Db;
  storeA: BatchStore;
  storeB: BatchStore;
  close: () => Promise<void>;
}

/** A migrated database of its own, two clients and a batch store on each, and the merchant `merchantId`. */
export async function openTwoInstances(target: "sqlite" | "postgresql", prefix: string, merchantId: string): Promise<TwoInstances> {
  const { createPrismaClient } = await import("@/server/db/client");
  const { createBatchStore } = await import("@/server/db/batch-store");
  const { chunkLeases } = await import("@/server/services/batches/batch-worker");
  const database = await openTestDatabase(target, prefix);
  const dbA = createPrismaClient(database.url);
  const dbB = createPrismaClient(database.url);
  const storeA = createBatchStore(dbA, database.url, chunkLeases(dbA));
  const storeB = createBatchStore(dbB, database.url, chunkLeases(dbB));
  await dbA.merchant.create({ data: { id: merchantId, name: "Batch instances", email: `${merchantId}@example.com`, passwordHash: "x" } });
  return {
    url: database.url,
    dbA,
    dbB,
    storeA,
    storeB,
    close: async () => {
      storeA.close();
      storeB.close();
      await dbA.$disconnect();
      await dbB.$disconnect();
      await database.stop();
    },
  };
}

/** A sandbox PAN batch of `n` items, `pan(i)` each, stored as the API stores one; its chunks are `${id}_${seq}`. */
export async function submitSandboxPanBatch(db: Db, merchantId: string, n: number, pan: (i: number) => string): Promise<string> {
  const { createBatch } = await import("@/server/services/batches/batches");
  const view = await createBatch(
    db,
    {
      merchantId,
      mode: "sandbox",
      kind: "PAN",
      requestId: newId("req"),
      apiKeyId: null,
      webhookUrl: null,
      clientBatchId: null,
      items: Array.from({ length: n }, (_, i) => ({ reference_id: `r${i}`, input: { pan: pan(i), name: null }, error: null })),
    },
    { sandboxItemsPerDay: 10_000_000 },
  );
  return view.batch_id;
}
