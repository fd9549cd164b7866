import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { acquireHotConnection, WalSync } from "@/server/db/sqlite-hot";

/** fsync calls held until the test lets each one finish. */
function heldSyncs() {
  const calls: { fd: number; done: (err: Error | null) => void }[] = [];
  return { calls, fsync: (fd: number, done: (err: Error | null) => void) => void calls.push({ fd, done }) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("WalSync", () => {
  const dirs: string[] = [];
  const walFile = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-walsync-"));
    dirs.push(dir);
    const file = path.join(dir, "x.db-wal");
    fs.writeFileSync(file, "");
    return file;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("answers a caller only after a sync that began after its call, and shares one sync among those that waited", () => {
    const held = heldSyncs();
    const sync = new WalSync(walFile(), held.fsync);
    const done: string[] = [];
    sync.after(() => done.push("a"));
    expect(held.calls).toHaveLength(1);
    // b and c arrive while a's sync runs: that sync began before them, so it cannot answer them.
    sync.after(() => done.push("b"));
    sync.after(() => done.push("c"));
    expect(held.calls).toHaveLength(1);
    held.calls[0]!.done(null);
    expect(done).toEqual(["a"]);
    expect(held.calls).toHaveLength(2);
    held.calls[1]!.done(null);
    expect(done).toEqual(["a", "b", "c"]);
    expect(held.calls).toHaveLength(2);
  });

  it("passes a failed sync's error to everyone it would have answered, and syncs again for the next caller", () => {
    const held = heldSyncs();
    const sync = new WalSync(walFile(), held.fsync);
    const seen: (Error | null)[] = [];
    sync.after((err) => seen.push(err));
    sync.after((err) => seen.push(err));
    held.calls[0]!.done(null);
    const eio = Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
    held.calls[1]!.done(eio);
    expect(seen).toEqual([null, eio]);
    sync.after((err) => seen.push(err));
    held.calls[2]!.done(null);
    expect(seen).toEqual([null, eio, null]);
  });

  it("reports a WAL file that cannot be opened as the sync's error", () => {
    const sync = new WalSync(path.join(os.tmpdir(), "parakh-no-such-dir", "x.db-wal"));
    const seen: (Error | null)[] = [];
    sync.after((err) => seen.push(err));
    expect((seen[0] as NodeJS.ErrnoException).code).toBe("ENOENT");
  });
});

describe("the hot connection with full sync", () => {
  let dir = "";
  /** A database file in WAL mode with one table, and a connection of its own to read it. */
  const walDatabase = () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-hot-"));
    const file = path.join(dir, "parakh.db");
    const setup = new Database(file);
    setup.pragma("journal_mode = WAL");
    setup.exec(`CREATE TABLE "T" ("v" INTEGER)`);
    return { file, setup };
  };
  afterEach(() => {
    vi.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("settles a write only after the WAL file holding its commit is fsynced, off the commit", async () => {
    const { file, setup } = walDatabase();
    const held: { fd: number; done: (err: Error | null) => void }[] = [];
    vi.spyOn(fs, "fsync").mockImplementation(((fd: number, done: (err: Error | null) => void) => void held.push({ fd, done })) as typeof fs.fsync);
    const hot = acquireHotConnection(`file:${file}`, "FULL");
    try {
      // SQLite itself does not sync the commit: the sync is ours, after it.
      expect(hot.conn.pragma("synchronous", { simple: true })).toBe(1);
      let settled = false;
      const write = hot.write(() => hot.conn.prepare(`INSERT INTO "T" ("v") VALUES (1)`).run()).then(() => (settled = true));
      for (let i = 0; i < 5 && held.length === 0; i++) await tick();
      expect(held).toHaveLength(1);
      // Committed (another connection reads it) but not yet reported done.
      expect(setup.prepare(`SELECT count(*) AS n FROM "T"`).get()).toEqual({ n: 1 });
      await tick();
      expect(settled).toBe(false);
      // The descriptor synced is the WAL file's.
      expect(fs.fstatSync(held[0]!.fd).ino).toBe(fs.statSync(`${file}-wal`).ino);
      held[0]!.done(null);
      await write;
      expect(settled).toBe(true);
    } finally {
      hot.release();
      setup.close();
    }
  });

  it("reports a failed WAL sync to the writes of that commit", async () => {
    const { file, setup } = walDatabase();
    const eio = Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
    vi.spyOn(fs, "fsync").mockImplementation(((_fd: number, done: (err: Error | null) => void) => void setImmediate(() => done(eio))) as typeof fs.fsync);
    const hot = acquireHotConnection(`file:${file}`, "FULL");
    try {
      await expect(hot.write(() => hot.conn.prepare(`INSERT INTO "T" ("v") VALUES (1)`).run())).rejects.toBe(eio);
    } finally {
      hot.release();
      setup.close();
    }
  });

  it("leaves syncing to SQLite with NORMAL, where no fsync follows a commit", async () => {
    const { file, setup } = walDatabase();
    const fsync = vi.spyOn(fs, "fsync");
    const hot = acquireHotConnection(`file:${file}`, "NORMAL");
    try {
      await hot.write(() => hot.conn.prepare(`INSERT INTO "T" ("v") VALUES (1)`).run());
      expect(fsync).not.toHaveBeenCalled();
    } finally {
      hot.release();
      setup.close();
    }
  });
});
