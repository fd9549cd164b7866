import { getConfig } from "@/server/config";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold: number | undefined;

/** Structured JSON lines on stderr. Callers pass ids and codes, never secrets or personal data. */
function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  threshold ??= ORDER[getConfig().logLevel];
  if (ORDER[level] < threshold) return;
  const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg, ...fields };
  if (fields?.err instanceof Error) {
    const e = fields.err;
    line.err = { name: e.name, message: e.message, stack: e.stack };
  }
  process.stderr.write(JSON.stringify(line) + "\n");
}

export const log = {
  /** Whether lines of this level are written: lets a hot path skip building fields nobody reads. */
  enabled: (level: Level) => ORDER[level] >= (threshold ??= ORDER[getConfig().logLevel]),
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
