import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request } from "../helpers/http";
import { createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

// A batch item writes the merchant's verification history row that a single call for the same PAN
// and name writes. The batch's rows go in as a chunk at a time (on PostgreSQL as column arrays);
// the single call's row goes through the audit writer. Both are read back with plain SQL.

/** Names that a column-array or JSON encoding could garble: quotes, backslashes, braces, commas, the word NULL, non-ASCII, a line break. */
const ITEMS: { pan: string; name?: string }[] = [
  { pan: "ABCPK1234F", name: "Rakesh Kumar" },
  { pan: "ABCPK1235F", name: `O'Brien "Junior"` },
  { pan: "ABCPK1236F", name: "back\\slash \\\\ two" },
  { pan: "ABCPK1237F", name: "{braces}, commas, (parens)" },
  { pan: "ABCPK1238F", name: "NULL" },
  { pan: "ABCPK1239F", name: "अर्जुन कपूर Ünïcødé" },
  { pan: "ABCPK1240F", name: "line\nbreak\ttab" },
  { pan: "ABCPK1241F" },
  { pan: "ABCPK9991F", name: "Not On Record" },
  { pan: "ABCPK9992F", name: "Deactivated Holder" },
  { pan: "ABCPK9998F", name: "Source Down" },
];

/** The columns a row of either kind must agree on. */
const SHARED_COLUMNS = `"merchantId", "mode", "kind", "subject", "nameQueried", "outcome", "nameMatch", "sourceNameMatch", "errorCode"`;
type HistoryRow = Record<string, unknown>;

describe.each(DB_TARGETS)("verification history rows of batch items on %s", (target) => {
  let env: Started;
  let db: Db;
  let m: MerchantFixture;
  const headers = () => ({ Authorization: `Bearer ${m.sandbox.secretKey}` });

  beforeAll(async () => {
    env = await startFor(target, { BATCH_RETRY_BUDGET_MS: "1500" });
    db = createPrismaClient(env.server.databaseUrl);
    m = await createMerchantViaCli(env.server.env, "History Rows");
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  // The one bound value of each query, in each database's own placeholder.
  const bound = () => (target === "postgresql" ? "$1" : "?");
  const rowsWhere = (where: string, ...values: unknown[]) =>
    db.$queryRawUnsafe<HistoryRow[]>(`SELECT ${SHARED_COLUMNS}, "requestId", "batchId", "createdAt" FROM "Verification" WHERE ${where}`, ...values);
  const key = (r: HistoryRow) => `${String(r.subject)}|${String(r.nameQueried)}`;
  const shared = (r: HistoryRow) => ({ ...r, requestId: undefined, batchId: undefined, createdAt: undefined });

  it("are the rows single calls write for the same PANs and names, with the batch's request, id and chunk commit time", async () => {
    const posted = await request(env.server.url, "/v1/identity/pan/batch", {
      method: "POST",
      body: { items: ITEMS.map((item, i) => ({ ...item, reference_id: `h${i}` })) },
      headers: headers(),
    });
    expect(posted.status).toBe(202);
    const batchId = posted.json.data.batch_id as string;
    await waitFor(
      `batch ${batchId} to complete`,
      async () => (await request(env.server.url, `/v1/identity/pan/batch/${batchId}`, { headers: headers() })).json.data.status === "COMPLETED",
      30_000,
      100,
    );
    for (const item of ITEMS) await request(env.server.url, "/v1/identity/pan/verify", { method: "POST", body: item, headers: headers() });

    const batchRows = await rowsWhere(`"batchId" = ${bound()}`, batchId);
    // The single calls' rows are written by the audit writer a moment after their answers.
    const singleRows = await waitFor(
      "the single calls' rows",
      async () => {
        const rows = await rowsWhere(`"merchantId" = ${bound()} AND "batchId" IS NULL`, m.merchantId);
        return rows.length === ITEMS.length ? rows : null;
      },
      10_000,
      50,
    );
    expect(batchRows).toHaveLength(ITEMS.length);
    const single = new Map(singleRows.map((r) => [key(r), r]));
    expect(single.size).toBe(ITEMS.length);
    for (const row of batchRows) expect(shared(row)).toEqual(shared(single.get(key(row))!));
    // Every name came back as it was sent, and the one without a name has none.
    expect(batchRows.map((r) => r.nameQueried).sort()).toEqual(ITEMS.map((i) => i.name ?? null).sort());
    expect(batchRows.find((r) => r.subject === "ABCPK9998F")).toMatchObject({ outcome: "ERROR", errorCode: "SOURCE_UNAVAILABLE", nameMatch: null });

    // What only a batch row has: the batch's request and id, and its chunk's commit time.
    const [batch] = await db.$queryRawUnsafe<{ requestId: string }[]>(`SELECT "requestId" FROM "Batch" WHERE "id" = ${bound()}`, batchId);
    const chunks = await db.$queryRawUnsafe<{ completedAt: Date }[]>(`SELECT "completedAt" FROM "BatchChunk" WHERE "batchId" = ${bound()}`, batchId);
    expect(chunks).toHaveLength(1);
    for (const row of batchRows) {
      expect(row.requestId).toBe(batch!.requestId);
      expect(new Date(row.createdAt as Date).getTime()).toBe(new Date(chunks[0]!.completedAt).getTime());
    }
  });
});
