import type { Db } from "@/server/db/client";

/**
 * Any change to keys, whitelist, go-live or suspension bumps one counter; every app instance polls
 * it and drops its auth cache when it moves, so changes apply everywhere within one second.
 */
export async function bumpAuthEpoch(db: Db): Promise<void> {
  await db.authEpoch.upsert({
    where: { id: 1 },
    create: { id: 1, version: 1 },
    update: { version: { increment: 1 } },
  });
  for (const listener of localListeners) listener();
}

export async function readAuthEpoch(db: Db): Promise<number> {
  const row = await db.authEpoch.findUnique({ where: { id: 1 }, select: { version: true } });
  return row?.version ?? 0;
}

const localListeners = new Set<() => void>();

/** Same-process changes clear caches at once instead of waiting for the next poll. */
export function onLocalAuthChange(listener: () => void): () => void {
  localListeners.add(listener);
  return () => localListeners.delete(listener);
}
