import { startPostgres, type PostgresCluster } from "./postgres";
import { startServer, type TestServer } from "./server";

export type DbTarget = "sqlite" | "postgresql";

/** Every integration suite runs once per database provider. */
export const DB_TARGETS: DbTarget[] = ["sqlite", "postgresql"];

export interface Started {
  server: TestServer;
  pg?: PostgresCluster;
  stop: () => Promise<void>;
}

export async function startFor(target: DbTarget, env: Record<string, string> = {}): Promise<Started> {
  const pg = target === "postgresql" ? await startPostgres({ migrated: true }) : undefined;
  const server = await startServer({ databaseUrl: pg?.url, env });
  return {
    server,
    pg,
    stop: async () => {
      await server.stop();
      await pg?.stop();
    },
  };
}
