// The shell commands the documentation shows (README.md, then docs/*.md by name), as `npm test` runs
// them: every ```sh block, one entry per command (backslash continuations joined, trailing `# comments`
// dropped), each with the ```json block that follows it, if any (the answer the document promises).
// A command shown in a ```text or ```console block is shown, not run.
import fs from "node:fs";
import path from "node:path";
import { README_COMMANDS_RUN_BY_STEPS } from "./test-steps";

export interface ReadmeCommand {
  command: string;
  /** The JSON the document shows right after the block, for the block's last command. */
  promised?: unknown;
}

export interface DocumentedCommand extends ReadmeCommand {
  /** The document that shows it, relative to the project root (`README.md`, `docs/api.md`). */
  file: string;
}

export function readmeCommands(markdown: string): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  const blocks = [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)];
  blocks.forEach((block, i) => {
    if (block[1] !== "sh") return;
    const joined = block[2]!.replace(/\\\n\s*/g, "");
    const commands = joined
      .split("\n")
      .map((line) => stripComment(line).trim())
      .filter(Boolean);
    const next = blocks[i + 1];
    let promised: unknown;
    if (next && next[1] === "json" && markdown.slice(block.index! + block[0].length, next.index).trim() === "") {
      promised = JSON.parse(next[2]!);
    }
    commands.forEach((command, j) => out.push({ command, promised: j === commands.length - 1 ? promised : undefined }));
  });
  return out;
}

/** README.md, then every Markdown file of docs/ by name: the documents whose commands CI runs. */
export function documentFiles(root: string): string[] {
  const docs = path.join(root, "docs");
  const inDocs = fs.existsSync(docs)
    ? fs
        .readdirSync(docs)
        .filter((f) => f.endsWith(".md"))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return ["README.md", ...inDocs];
}

/** Every command of every document, in document order. */
export function documentedCommands(root: string): DocumentedCommand[] {
  return documentFiles(root).flatMap((file) => readmeCommands(fs.readFileSync(path.join(root, file), "utf8")).map((c) => ({ ...c, file })));
}

/**
 * How `npm test` runs a documented command: `step` by a step of its own (scripts/test-steps.ts), the
 * others by `scripts/smoke.ts start` against its server. Undefined: nothing runs it, which the smoke
 * run and a unit test refuse.
 */
export type CommandKind = "step" | "cli" | "curl" | "focused-test" | "pan-cpu" | "batch-cpu" | "migrate" | "migration";

export function commandKind(command: string): CommandKind | undefined {
  if (Object.hasOwn(README_COMMANDS_RUN_BY_STEPS, command)) return "step";
  if (command.startsWith("npm run -s cli -- ")) return "cli";
  if (command.startsWith("curl ")) return "curl";
  if (/^(TEST_DB=\w+ )?npm test -- \S/.test(command)) return "focused-test";
  if (/^(PROFILE_DIR=\S+ )?npx tsx scripts\/bench\/pan-cpu\.ts$/.test(command)) return "pan-cpu";
  if (/^(BENCH_DB=[\w-]+ )?npx tsx scripts\/bench\/batch-cpu\.ts$/.test(command)) return "batch-cpu";
  if (command === "npm run db:migrate") return "migrate";
  if (command.startsWith("npm run db:migration -- ")) return "migration";
  return undefined;
}

/** Drops a `# comment` that is outside quotes. */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}
