import { verifyEpfoInput, verifyEpfoMeta } from "@/server/api/employment/verify-epfo.schema";
import { verifyPanInput, verifyPanMeta } from "@/server/api/identity/verify-pan.schema";
import type { BatchKind, SubmittedItem } from "@/server/services/batches/batches";
import { mapValidationError } from "@/server/rest/errors";

/** A rejected item's input is echoed in its result up to this size; larger ones are not kept. */
const ECHO_MAX_CHARS = 1024;
export const REFERENCE_MAX_CHARS = 100;

const SINGLE = {
  PAN: { schema: verifyPanInput, meta: verifyPanMeta.rest },
  EPFO: { schema: verifyEpfoInput, meta: verifyEpfoMeta.rest },
} as const;

function echo(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= ECHO_MAX_CHARS ? value : null;
  } catch {
    return null;
  }
}

/**
 * Validates each batch item exactly as the single call validates its body, so a rejected item
 * carries the code that call would answer (INVALID_PAN, INVALID_UAN, VALIDATION_ERROR…).
 */
export function validateBatchItems(kind: BatchKind, raw: unknown[]): SubmittedItem[] {
  const { schema, meta } = SINGLE[kind];
  return raw.map((item): SubmittedItem => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      return { reference_id: null, input: echo(item), error: { code: "VALIDATION_ERROR", message: "Each item must be a JSON object." } };
    }
    const { reference_id: ref, ...fields } = item as Record<string, unknown>;
    if (ref !== undefined && ref !== null && (typeof ref !== "string" || ref.length > REFERENCE_MAX_CHARS)) {
      return {
        reference_id: null,
        input: echo(fields),
        error: { code: "VALIDATION_ERROR", message: `reference_id must be a string of at most ${REFERENCE_MAX_CHARS} characters.` },
      };
    }
    const reference_id = typeof ref === "string" ? ref : null;
    const parsed = schema.safeParse(fields);
    if (!parsed.success) {
      const mapped = mapValidationError(parsed.error, fields, meta);
      return { reference_id, input: echo(fields), error: { code: mapped.code, message: mapped.message ?? mapped.code } };
    }
    const v = parsed.data as { pan?: string; name?: string | null; uan?: string; pf_number?: string };
    const input = kind === "PAN" ? { pan: v.pan!, name: v.name ?? null } : v.uan !== undefined ? { uan: v.uan } : { pf_number: v.pf_number! };
    return { reference_id, input, error: null };
  });
}
