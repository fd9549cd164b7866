import fs from "node:fs";

/**
 * `npx tsx scripts/bench/profile-top.ts <file.cpuprofile> [requests] [last-seconds]`: the functions
 * and files with the most self time in a V8 CPU profile, and the app's files by inclusive time;
 * with the number of requests served, as µs per request; with last-seconds, only the samples of the
 * profile's last seconds (the measured run, without start-up and warm-up). Idle time is left out.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  endTime: number;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, requestsArg, lastArg] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-top.ts <file.cpuprofile> [requests]");
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
const requests = Number(requestsArg ?? 0);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const from = lastArg ? profile.endTime - Number(lastArg) * 1e6 : 0;
const self = new Map<number, number>();
const inclusive = new Map<string, number>();
let t = profile.startTime;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  t += dt;
  if (t < from || byId.get(id)!.callFrame.functionName === "(idle)") return;
  self.set(id, (self.get(id) ?? 0) + dt);
  const files = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const where = shortUrl(byId.get(n)!.callFrame.url);
    if (where.startsWith("src/")) files.add(where);
    else if (where.startsWith("nm:")) files.add(packageOf(where));
  }
  for (const f of files) inclusive.set(f, (inclusive.get(f) ?? 0) + dt);
});

function packageOf(where: string) {
  return where
    .split("/")
    .slice(0, where.startsWith("nm:@") ? 2 : 1)
    .join("/");
}
function shortUrl(url: string) {
  return url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "nm:")
    .replace(/.*\/src\//, "src/");
}
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = shortUrl(url) || "(native)";
  const fn = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  const pkg = where.startsWith("nm:") ? packageOf(where) : where;
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + us);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const show = (title: string, m: Map<string, number>, n: number) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    const per = requests ? ` ${(us / requests).toFixed(1)} µs/req` : "";
    process.stdout.write(`${((us / total) * 100).toFixed(1).padStart(5)}%${per}  ${k}\n`);
  }
};
process.stdout.write(`total sampled ${(total / 1e6).toFixed(2)} s${requests ? `, ${(total / requests).toFixed(1)} µs/req` : ""}\n`);
show("by file / package (self time)", byFile, 30);
show("by function (self time)", byFunction, 40);
show("app files and packages (inclusive time)", inclusive, 40);
