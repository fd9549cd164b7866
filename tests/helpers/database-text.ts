import type { Db } from "@/server/db/client";

/**
 * Every row of every table of the app's database as one JSON text, for asserting that a value is
 * stored nowhere (not only where a test thinks to look). Fine for a test database, not for a big one.
 */
export async function everyStoredText(db: Db, provider: "sqlite" | "postgresql"): Promise<string> {
  const tables: { name: string }[] =
    provider === "sqlite"
      ? await db.$queryRawUnsafe(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      : await db.$queryRawUnsafe(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
        );
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows: unknown[] = await db.$queryRawUnsafe(`SELECT * FROM "${name.replaceAll('"', '""')}"`);
    parts.push(`${name}: ${JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`);
  }
  return parts.join("\n");
}
