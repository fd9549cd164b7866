import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandKind, documentFiles, documentedCommands } from "../../scripts/readme-commands";

// README.md and docs/*.md as a reader on GitHub follows them: every relative link names a file that
// exists and, for a heading, one the file has; every command they show in a ```sh block is one
// `npm test` runs (a step of its own, or scripts/smoke.ts against a server).
const root = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** The text outside fenced code blocks, with inline code blanked out (a `[x](y)` there is not a link). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "``");
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function githubSlug(heading: string): string {
  return heading
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every heading's anchor in a Markdown file, repeats numbered as GitHub numbers them (`-1`, `-2`). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").split("\n")) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = githubSlug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  from: string;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const m of prose(read(file)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    links.push({ from: file, target });
  }
  return links;
}

/** Why a link does not resolve, or undefined when it does. */
function brokenBecause({ from, target }: Link): string | undefined {
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const resolved = pathPart === "" ? path.join(root, from) : path.resolve(path.dirname(path.join(root, from)), decodeURIComponent(pathPart));
  if (path.relative(root, resolved).startsWith("..")) return "points outside the project";
  if (!fs.existsSync(resolved)) return `no such file: ${path.relative(root, resolved)}`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith(".md")) return "an anchor into a file that is not Markdown";
  const known = anchors(fs.readFileSync(resolved, "utf8"));
  return known.has(anchor) ? undefined : `${path.relative(root, resolved)} has no heading #${anchor}`;
}

describe("GitHub's heading anchors, as this test computes them", () => {
  it("match the anchors GitHub gives these headings", () => {
    expect(githubSlug("Quick start")).toBe("quick-start");
    expect(githubSlug("How the vendor's answers map to Parakh's")).toBe("how-the-vendors-answers-map-to-parakhs");
    expect(githubSlug("`npm test`, stage by stage")).toBe("npm-test-stage-by-stage");
    expect(githubSlug("Live settings (`LIVE_*`)")).toBe("live-settings-live_");
    expect(githubSlug("PAN / EPFO: the first calls")).toBe("pan--epfo-the-first-calls");
    expect([...anchors("# A\n\n```sh\n# not a heading\n```\n\n## A\n### B.\n")]).toEqual(["a", "a-1", "b"]);
  });
});

describe("README.md and docs/*.md", () => {
  const files = documentFiles(root);

  it("are README.md and at least the guides it sends a reader to", () => {
    expect(files[0]).toBe("README.md");
    expect(files).toEqual(expect.arrayContaining(["docs/api.md", "docs/operations.md", "docs/going-live.md", "docs/development.md", "docs/performance.md"]));
  });

  it("link only to files and headings that exist", () => {
    const links = files.flatMap(relativeLinks);
    expect(links.length).toBeGreaterThan(20);
    const broken = links.map((l) => ({ ...l, why: brokenBecause(l) })).filter((l) => l.why);
    expect(broken).toEqual([]);
  });

  it("are each reachable from the README", () => {
    const linkedFromReadme = new Set(
      relativeLinks("README.md")
        .map((l) => l.target.split("#")[0]!)
        .filter(Boolean)
        .map((t) => path.normalize(t)),
    );
    expect(files.filter((f) => f !== "README.md" && !linkedFromReadme.has(f))).toEqual([]);
  });

  it("show only commands that npm test runs as written", () => {
    const commands = documentedCommands(root);
    expect(commands.length).toBeGreaterThan(30);
    expect(commands.filter((c) => commandKind(c.command) === undefined).map((c) => `${c.file}: ${c.command}`)).toEqual([]);
    // The quick start's two commands, exactly as a newcomer types them.
    expect(readmeQuickStart()).toEqual(["npm install && npm run dev", "npm test"]);
  });
});

function readmeQuickStart(): string[] {
  return documentedCommands(root)
    .filter((c) => c.file === "README.md")
    .slice(0, 2)
    .map((c) => c.command);
}
