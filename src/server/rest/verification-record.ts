import { AppError } from "@/server/errors";
import type { RestState } from "@/server/rest/state";
import type { VerificationRecord } from "@/server/services/audit/audit-writer";

/**
 * Runs a verification and hands its outcome (answer or source error) to the request's audit record,
 * so the merchant's verification history is written in the same group commit as the log.
 */
export async function withVerificationRecord<T>(
  rest: RestState,
  run: () => Promise<T>,
  record: (outcome: { result: T } | { error: AppError }) => VerificationRecord,
): Promise<T> {
  try {
    const result = await run();
    rest.verification = record({ result });
    return result;
  } catch (err) {
    if (err instanceof AppError) rest.verification = record({ error: err });
    throw err;
  }
}
