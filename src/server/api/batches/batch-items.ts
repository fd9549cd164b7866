import { epfoLookupInput, verifyEpfoMeta } from "@/server/api/employment/verify-epfo.schema";
import { panLookupInput, verifyPanMeta } from "@/server/api/identity/verify-pan.schema";
import type { z } from "zod";
import { mapValidationError } from "@/server/rest/errors";
import type { RestMeta } from "@/server/rest/meta";
import type { BatchKind, EpfoItemInput, PanItemInput, SubmittedItem } from "@/server/services/batches/batches";
import { findUnstorableField, unstorableIn } from "@/lib/stored-text";
import { redactValue, storedFreeText } from "@/server/services/audit/redact";

/** A rejected item's input is echoed in its result up to this size; larger ones are not kept. */
const ECHO_MAX_CHARS = 1024;
export const REFERENCE_MAX_CHARS = 100;

type ItemInput = PanItemInput | EpfoItemInput;

interface ItemKind {
  schema: z.ZodType;
  meta: RestMeta;
  /** The stored input of an item the schema accepted. */
  input: (accepted: unknown) => ItemInput;
}

function itemKind<S extends z.ZodType>(schema: S, meta: RestMeta, input: (accepted: z.output<S>) => ItemInput): ItemKind {
  return { schema, meta, input: input as (accepted: unknown) => ItemInput };
}

/**
 * Each kind's single-call schema and the stored input built from what it accepted, looked up
 * together once per batch. The input is never chosen by comparing the kind item by item: on the
 * body thread, Node 20's optimised code once in a few thousand items answered `kind === "PAN"`
 * false for a PAN batch, and that item was stored accepted with an EPFO input of nothing (`{}`).
 */
const SINGLE: Record<BatchKind, ItemKind> = {
  // The name is kept redacted (B9), like every stored free text: it is echoed in the results for years.
  PAN: itemKind(panLookupInput, verifyPanMeta.rest, (v) => ({ pan: v.pan, name: storedFreeText(v.name) })),
  EPFO: itemKind(epfoLookupInput, verifyEpfoMeta.rest, (v) => (v.uan !== undefined ? { uan: v.uan } : { pf_number: v.pf_number! })),
};

/** A rejected item's input as its result echoes it, redacted (B9), or null when too large. */
function echo(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= ECHO_MAX_CHARS ? redactValue(value) : null;
  } catch {
    return null;
  }
}

/**
 * Validates each batch item exactly as the single call validates its body, so a rejected item
 * carries the code that call would answer (INVALID_PAN, INVALID_UAN, VALIDATION_ERROR…). An item
 * holding text no database stores as sent (see stored-text.ts) is rejected like the single call's
 * body; `checkText: false` skips that look for items the caller knows hold none.
 */
export function validateBatchItems(kind: BatchKind, raw: unknown[], checkText = true): SubmittedItem[] {
  const { schema, meta, input: inputOf } = SINGLE[kind];
  return raw.map((item): SubmittedItem => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      return { reference_id: null, input: echo(item), error: { code: "VALIDATION_ERROR", message: "Each item must be a JSON object." } };
    }
    const { reference_id: ref, ...fields } = item as Record<string, unknown>;
    const refUnstorable = checkText && typeof ref === "string" ? unstorableIn(ref) : null;
    if (refUnstorable || (ref !== undefined && ref !== null && (typeof ref !== "string" || ref.length > REFERENCE_MAX_CHARS))) {
      return {
        reference_id: null,
        input: echo(fields),
        error: {
          code: "VALIDATION_ERROR",
          message: refUnstorable
            ? `reference_id must not contain ${refUnstorable}.`
            : `reference_id must be a string of at most ${REFERENCE_MAX_CHARS} characters.`,
        },
      };
    }
    const reference_id = typeof ref === "string" ? ref : null;
    const unstorable = checkText ? findUnstorableField(fields) : null;
    if (unstorable) return { reference_id, input: echo(fields), error: { code: "VALIDATION_ERROR", message: `${unstorable.message}.` } };
    const parsed = schema.safeParse(fields);
    if (!parsed.success) {
      const mapped = mapValidationError(parsed.error, fields, meta);
      return { reference_id, input: echo(fields), error: { code: mapped.code, message: mapped.message ?? mapped.code } };
    }
    return { reference_id, input: inputOf(parsed.data), error: null };
  });
}
