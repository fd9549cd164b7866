import { describe, expect, it } from "vitest";
import { sql, sqlJoined, sqlPlannedEachRun, sqlWithParts } from "@/server/db/atomic-write";

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

describe("sqlWithParts", () => {
  const part = (x: number, y: number) => sql`("a" = ${x} OR "b" < ${y})`;
  const other = (z: number) => sql`"c" = ${z}`;
  const outer = (id: string, p: ReturnType<typeof sql>, q: ReturnType<typeof sql>, ids: string[]) =>
    sqlWithParts`SELECT 1 WHERE "id" = ${id} AND ${p} AND ${q} AND "id" = ANY(${ids})`;

  it("writes each piece into the text with its values in their places; arrays stay values", () => {
    const st = outer("x", part(1, 2), other(3), ["y"]);
    expect([...st.strings]).toEqual(['SELECT 1 WHERE "id" = ', ' AND ("a" = ', ' OR "b" < ', ') AND "c" = ', ' AND "id" = ANY(', ")"]);
    expect(st.values).toEqual(["x", 1, 2, 3, ["y"]]);
  });

  it("gives the same text object for the same call site and pieces, another for other pieces", () => {
    expect(outer("x", part(1, 2), other(3), []).strings).toBe(outer("y", part(4, 5), other(6), []).strings);
    expect(outer("x", other(1), part(1, 2), []).strings).not.toBe(outer("x", part(1, 2), other(3), []).strings);
  });
});
