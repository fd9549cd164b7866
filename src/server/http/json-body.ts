import { BATCH_MAX_ITEMS } from "@/lib/schemas/batches";
import { validateBatchItems } from "@/server/api/batches/batch-items";
import { batchCreateInput } from "@/server/api/batches/create-batch.schema";
import { isAppError, type ErrorCode, type FieldError } from "@/server/errors";
import { findUnstorableField, mayHoldUnstorableEscapes } from "@/lib/stored-text";
import { asJsonObject, parseJson } from "@/server/rest/body";
import { REFUSED_BODY_BYTES, type AuditBodies } from "@/server/rest/request-record";
import { MAX_STORED_BYTES, redactedJsonUnderCaps, unparsedBodyText } from "@/server/services/audit/redact";
import { prepareBatchItems, type BatchKind, type PreparedBatchItems } from "@/server/services/batches/batches";

/**
 * A request body read for its operation: the input, and for a batch route its items validated and
 * cut into stored chunks; or the code it is refused with. Small and cheap to copy between threads:
 * a batch's items come back as chunk JSON, not as 10,000 objects.
 */
export type ReadJsonBody =
  | { ok: true; input: Record<string, unknown>; batch: PreparedBatchItems | null; audit: AuditBodies }
  | { ok: false; code: ErrorCode; message: string; details?: FieldError[]; audit: AuditBodies };

/** The batch body's fields besides `items`; others are dropped, as its schema drops them. */
const BATCH_FIELDS = Object.keys(batchCreateInput("PAN").shape).filter((name) => name !== "items");
/** A batch's items are checked one by one: a bad one is rejected alone. */
const CHECKED_AS_ITEMS = new Set(["items"]);

function refusal(err: unknown, audit: AuditBodies): ReadJsonBody {
  if (!isAppError(err)) throw err;
  return { ok: false, code: err.code, message: err.message, audit };
}

function audited(value: unknown): AuditBodies {
  const [served, refused] = redactedJsonUnderCaps(value, [MAX_STORED_BYTES, REFUSED_BODY_BYTES]);
  return { served: served!, refused: refused! };
}

/**
 * Parses and checks a JSON object body, redacts its audit text once, and for a batch route
 * validates its items like single calls. The input keeps a stand-in for `items` of the same length
 * (up to one past the cap), which is all the procedure's schema checks of it.
 */
export function readJsonBody(raw: Buffer, batchKind: BatchKind | null, chunkSize: number): ReadJsonBody {
  let value: unknown;
  try {
    value = parseJson(raw);
  } catch (err) {
    const text = unparsedBodyText(raw.toString("utf8"));
    return refusal(err, { served: text, refused: text });
  }
  const audit = audited(value);
  let input: Record<string, unknown>;
  try {
    input = asJsonObject(value);
  } catch (err) {
    return refusal(err, audit);
  }
  // Text no database stores as sent is refused before anything reads it (stored-text.ts).
  const mayHoldUnstorable = mayHoldUnstorableEscapes(raw);
  const unstorable = mayHoldUnstorable ? findUnstorableField(input, batchKind === null ? undefined : CHECKED_AS_ITEMS) : null;
  if (unstorable) return { ok: false, code: "VALIDATION_ERROR", message: `${unstorable.message}.`, details: [unstorable], audit };
  if (batchKind === null || !Array.isArray(input.items)) return { ok: true, input, batch: null, audit };
  const count = input.items.length;
  const batch = count >= 1 && count <= BATCH_MAX_ITEMS ? prepareBatchItems(validateBatchItems(batchKind, input.items, mayHoldUnstorable), chunkSize) : null;
  const fields: Record<string, unknown> = { items: new Array(Math.min(count, BATCH_MAX_ITEMS + 1)) };
  for (const name of BATCH_FIELDS) if (name in input) fields[name] = input[name];
  return { ok: true, input: fields, batch, audit };
}
