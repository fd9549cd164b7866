import os from "node:os";
import { describe, expect, it } from "vitest";
import { defaultWebConcurrency } from "@/server/config";

describe("the default number of workers", () => {
  it("is every core in production on PostgreSQL", () => {
    expect(defaultWebConcurrency("production", "postgresql://parakh@127.0.0.1:5432/parakh")).toBe(os.availableParallelism());
  });

  it("is one process on SQLite, whose one write lock several processes would fight over", () => {
    expect(defaultWebConcurrency("production", "file:/var/lib/parakh/parakh.db")).toBe(1);
  });

  it("is one process in development and tests", () => {
    expect(defaultWebConcurrency("development", "postgresql://parakh@127.0.0.1:5432/parakh")).toBe(1);
    expect(defaultWebConcurrency(undefined, "postgresql://parakh@127.0.0.1:5432/parakh")).toBe(1);
  });
});
