// One PostgreSQL cluster for the whole integration run: each test file gets fresh databases on it
// (startPostgres), instead of paying an initdb and a server start per file.
import { SHARED_CLUSTER_ENV, startCluster } from "./postgres";

export default async function setup() {
  if (process.env[SHARED_CLUSTER_ENV]) return undefined;
  // Two files at a time, each with a few servers (a pool of 10 each) and its own clients.
  const cluster = await startCluster({ maxConnections: 400 });
  process.env[SHARED_CLUSTER_ENV] = cluster.base;
  return async () => {
    delete process.env[SHARED_CLUSTER_ENV];
    await cluster.stop();
  };
}
