import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "@/server/errors";
import { isStorableText } from "@/lib/stored-text";

/**
 * An id taken from the path. One longer than any real id, or holding text no id has (U+0000, which
 * PostgreSQL cannot even compare), cannot exist, so it is not found, with the operation's own
 * not-found code (an unknown id is too), not a validation error. The check keeps such values away
 * from the database; the document shows no maxLength, as none is refused for it.
 */
export function pathIdField(maxLength: number, notFound: ErrorCode) {
  return z
    .string()
    .min(1)
    .check((ctx) => {
      if (ctx.value.length > maxLength || !isStorableText(ctx.value)) {
        ctx.issues.push({ code: "custom", input: ctx.value, message: ERROR_CODES[notFound].message, params: { code: notFound } });
      }
    });
}
