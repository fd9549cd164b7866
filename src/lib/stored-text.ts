/**
 * Text no database keeps as sent: U+0000 (PostgreSQL's text cannot hold it; one such value used to
 * fail every record committed with it) and unpaired UTF-16 surrogates (both databases store UTF-8,
 * so either would silently become U+FFFD). Every other character, controls included, is text like
 * any other: kept as sent, escaped wherever it is shown.
 */
export function unstorableIn(text: string): "U+0000" | "an unpaired surrogate" | null {
  if (text.includes("\u0000")) return "U+0000";
  return text.isWellFormed() ? null : "an unpaired surrogate";
}

export function isStorableText(text: string): boolean {
  return unstorableIn(text) === null;
}

/** One field holding unstorable text: its path (`meta.name`, `items.3.pan`; a key as JSON escapes it) and why. */
export interface UnstorableField {
  field: string;
  message: string;
}

function segment(key: string): string {
  return isStorableText(key) ? key : JSON.stringify(key).slice(1, -1);
}

/**
 * The first field of a parsed JSON value whose key or string value is unstorable, in document order;
 * null when there is none. `skip` names top-level keys checked elsewhere (a batch's items, one by one).
 * Recursive: callers pass values whose depth the door has already bounded.
 */
export function findUnstorableField(value: unknown, skip?: ReadonlySet<string>, path = ""): UnstorableField | null {
  const named = path || "body";
  if (typeof value === "string") {
    const why = unstorableIn(value);
    return why ? { field: named, message: `${named} must not contain ${why}` } : null;
  }
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableField(value[i], undefined, path ? `${path}.${i}` : String(i));
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (path === "" && skip?.has(key)) continue;
    const childPath = path ? `${path}.${segment(key)}` : segment(key);
    const why = unstorableIn(key);
    if (why) return { field: childPath, message: `${childPath} must not contain ${why} in its name` };
    const found = findUnstorableField((value as Record<string, unknown>)[key], undefined, childPath);
    if (found) return found;
  }
  return null;
}

/**
 * A JSON text can only hold such characters written as `\u` escapes (raw control characters are not
 * valid JSON, and invalid UTF-8 decodes to U+FFFD), so a body without one needs no walk.
 */
export function mayHoldUnstorableEscapes(raw: Buffer | string): boolean {
  return raw.includes("\\u");
}
