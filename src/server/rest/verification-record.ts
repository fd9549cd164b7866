import { AppError, isAppError } from "@/server/errors";
import type { AuditNote } from "@/server/rest/context";
import type { VerificationRecord } from "@/server/services/audit/audit-writer";

/**
 * Runs a verification and hands its outcome (answer or source error) to the request's audit record,
 * so the merchant's verification history is written in the same group commit as the log.
 */
export async function withVerificationRecord<T>(
  audit: AuditNote,
  run: () => Promise<T>,
  record: (outcome: { result: T } | { error: AppError }) => VerificationRecord,
): Promise<T> {
  try {
    const result = await run();
    audit.verification = record({ result });
    return result;
  } catch (err) {
    if (isAppError(err)) audit.verification = record({ error: err });
    throw err;
  }
}
