import { startPostgres, type PostgresCluster } from "./postgres";
import { startServer, type TestServer } from "./server";

export { DB_TARGETS, type DbTarget } from "./db-targets";
import type { DbTarget } from "./db-targets";

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
