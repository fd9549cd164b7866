/**
 * Request/response examples for the API reference and the start-up banner, computed by the same
 * services and sandbox providers that answer real calls, so a documented example is what the
 * sandbox returns for it.
 */
import { v1Ok, v1OkNoTimestamp } from "@/server/rest/envelope";
import { sandboxEpfoProvider } from "@/server/providers/epfo/sandbox";
import { sandboxPanRecord, sandboxPanProvider } from "@/server/providers/pan/sandbox";
import { verifyEpfo } from "@/server/services/employment/verify-epfo";
import { verifyPan } from "@/server/services/identity/verify-pan";

export interface OperationExample {
  request?: Record<string, unknown>;
  response: unknown;
}

export const EXAMPLE_PAN = "ABCPK1234F";
export const EXAMPLE_UAN = "100200300400";

/** "ARJUN KAPOOR" → "Arjun Kapoor": how a merchant's form would send the holder's name. */
function asTyped(name: string): string {
  return name.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());
}

/** The PAN example: the holder name on the sandbox's record, so the example is a full match. */
export function panVerifyRequestExample(): { pan: string; name: string } {
  const record = sandboxPanRecord(EXAMPLE_PAN);
  return { pan: EXAMPLE_PAN, name: asTyped(record.name ?? "") };
}

export async function operationExamples(): Promise<Record<string, OperationExample>> {
  const pan = panVerifyRequestExample();
  return {
    "POST /v1/identity/pan/verify": { request: pan, response: v1Ok(await verifyPan(sandboxPanProvider, pan.pan, pan.name)) },
    "POST /v1/employment/epfo/verify": {
      request: { uan: EXAMPLE_UAN },
      response: v1OkNoTimestamp(await verifyEpfo(sandboxEpfoProvider, { uan: EXAMPLE_UAN })),
    },
  };
}
