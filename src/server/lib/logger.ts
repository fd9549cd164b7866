type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold: number | undefined;

/**
 * LOG_LEVEL as config.ts validates it (an unknown value stops start-up there), read from the
 * environment itself so that every layer, db/ included, may log without importing the settings.
 */
function levelThreshold(): number {
  const level = process.env.LOG_LEVEL ?? "info";
  return Object.hasOwn(ORDER, level) ? ORDER[level as keyof typeof ORDER] : ORDER.info;
}

/** Structured JSON lines on stderr. Callers pass ids and codes, never secrets or personal data. */
function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  threshold ??= levelThreshold();
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
  enabled: (level: Level) => ORDER[level] >= (threshold ??= levelThreshold()),
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
