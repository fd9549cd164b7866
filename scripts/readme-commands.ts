// The shell commands the README shows, as `npm test` runs them: every ```sh block, one entry per
// command (backslash continuations joined, trailing `# comments` dropped), each with the ```json
// block that follows it, if any (the answer the README promises).

export interface ReadmeCommand {
  command: string;
  /** The JSON the README shows right after the block, for the block's last command. */
  promised?: unknown;
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
