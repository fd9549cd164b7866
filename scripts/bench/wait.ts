import fs from "node:fs";

/** A JSON file another process writes (the demo credentials), once it is there and whole. */
export async function waitForJson<T>(file: string, timeoutMs = 10_000): Promise<T> {
  for (const end = Date.now() + timeoutMs; Date.now() < end;) {
    try {
      return JSON.parse(fs.readFileSync(file, "utf8")) as T;
    } catch {
      // not there yet, or still being written
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${file} was not written`);
}
