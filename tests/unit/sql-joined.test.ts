import { describe, expect, it } from "vitest";
import { sql, sqlJoined, sqlPlannedEachRun } from "@/server/db/atomic-write";

const head = (a: number) => sqlPlannedEachRun`SELECT ${a} AS "a", `;
const tail = (b: number, c: number) => sql`${b} AS "b", ${c} AS "c"`;

describe("sqlJoined", () => {
  it("writes the tail after the head, values in order, and keeps the head's planning rule", () => {
    const st = sqlJoined(head(1), tail(2, 3));
    expect([...st.strings]).toEqual(["SELECT ", ' AS "a", ', ' AS "b", ', ' AS "c"']);
    expect(st.values).toEqual([1, 2, 3]);
    expect(st.planEachRun).toBe(true);
    expect(sqlJoined(sql`SELECT `, tail(2, 3)).planEachRun).toBeUndefined();
  });

  it("gives the same text object for the same pair of call sites, so the prepared statement is reused", () => {
    expect(sqlJoined(head(1), tail(2, 3)).strings).toBe(sqlJoined(head(4), tail(5, 6)).strings);
  });
});
