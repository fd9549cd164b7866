import type { AnyRouter } from "@trpc/server";

type ZodLike = { _zod?: { def?: Record<string, unknown> & { type?: string } } };

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"]);
const COERCIBLE = new Set(["number", "boolean", "bigint", "date"]);

/** The schema under optional/nullable/default wrappers, as trpc-to-openapi unwraps it. */
function unwrap(schema: ZodLike): ZodLike {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const def = s?._zod?.def;
    if (!def || !WRAPPERS.has(String(def.type))) return s;
    s = (def.innerType as ZodLike) ?? s;
  }
  return s;
}

function lockObject(schema: ZodLike, seen: Set<object>) {
  const def = schema._zod?.def;
  if (!def || def.type !== "object" || seen.has(def)) return;
  seen.add(def);
  for (const field of Object.values((def.shape as Record<string, ZodLike>) ?? {})) {
    const inner = unwrap(field);
    const innerDef = inner._zod?.def;
    if (!innerDef) continue;
    if (COERCIBLE.has(String(innerDef.type))) {
      // An accessor that always reads false: the adapter's attempt to switch coercion on is ignored.
      Object.defineProperty(innerDef, "coerce", { get: () => false, set: () => undefined, configurable: false, enumerable: true });
    } else if (innerDef.type === "object") lockObject(inner, seen);
  }
}

/**
 * trpc-to-openapi switches zod coercion on for every number and boolean field of an input object
 * (`true` became 1, `[]` 0, `"0x10"` 16), and does it by mutating the shared schemas, which the
 * dashboard uses too. JSON bodies carry real types, so the REST inputs keep theirs: fields that
 * accept numeric strings (`amount`) say so in their own schema, and query parameters are parsed
 * from strings explicitly.
 */
export function lockInputTypes(router: AnyRouter) {
  const seen = new Set<object>();
  for (const procedure of Object.values(router._def.procedures) as { _def: { inputs?: ZodLike[] } }[]) {
    for (const input of procedure._def.inputs ?? []) lockObject(unwrap(input), seen);
  }
}
