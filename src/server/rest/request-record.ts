import type { IncomingMessage } from "node:http";
import type { ErrorCode } from "@/server/errors";
import { requestIdFrom } from "@/server/rest/request-id";
import type { AuditNote, RestAuth } from "@/server/rest/context";
import type { EnvelopeKind } from "@/server/rest/envelope";
import { restKindOf } from "@/server/rest/paths";
import { redactedBodyText, redactString } from "@/server/services/audit/redact";

/**
 * What an audit record keeps of a request. A caller without valid credentials gets a short record;
 * a refused call (4xx) an excerpt of its body; a served call its body up to the redaction cap.
 */
const AUDIT_PATH_CHARS = 1024;
const STRANGER_PATH_CHARS = 256;
const STRANGER_AGENT_CHARS = 256;
export const REFUSED_BODY_BYTES = 8 * 1024;

/** The body's text in the audit record, for a served answer and for a refused one (4xx and up). */
export interface AuditBodies {
  served: string | null;
  refused: string | null;
}

/** Everything the door knows about one request, for its answer and its audit record. */
export interface RequestRecord {
  requestId: string;
  kind: EnvelopeKind;
  method: string;
  /** As sent, query included, redacted: it may carry anything (an Aadhaar or card number). */
  path: string;
  clientIp: string;
  userAgent: string | null;
  startedAt: number;
  rawBody: Buffer | null;
  /** The body's audit text, redacted once as it was read (on a pool thread for a large body). */
  auditBodies: AuditBodies | null;
  auth: RestAuth | null;
  audit: AuditNote;
  /** A stranger's refusal past the address's limit: answered, counted, not stored. */
  unrecorded: boolean;
  /** The audit record of its answer was written (or tried): sending it writes no other. */
  recorded: boolean;
}

/** One answer of the door: status, extra headers and the JSON body; `code` names an error answer. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  code: ErrorCode | null;
  /** The body as JSON, once made for the audit record. */
  text?: string;
}

export function newRecord(req: IncomingMessage, pathname: string, clientIp: string): RequestRecord {
  return {
    requestId: requestIdFrom(req.headers["x-request-id"]),
    kind: restKindOf(pathname) ?? (pathname.toLowerCase().includes("v1") ? "v1" : "api"),
    // As sent: methods are case-sensitive, and `get` (which only reaches us unparsed) is not GET.
    method: req.method ?? "GET",
    path: redactString(req.url ?? pathname),
    clientIp,
    // Redacted like a body (whole, before the cut): a header may carry a card number or a secret key.
    userAgent: typeof req.headers["user-agent"] === "string" ? redactString(req.headers["user-agent"]).slice(0, 512) : null,
    startedAt: performance.now(),
    rawBody: null,
    auditBodies: null,
    auth: null,
    audit: { verification: null, kycTransactionId: null },
    unrecorded: false,
    recorded: false,
  };
}

/** The audit record of an answered request: short for a caller without valid credentials, bodies redacted. */
export function auditRecord(record: RequestRecord, answer: Answer, responseText: string, latencyMs: number) {
  const known = record.auth !== null;
  const pathChars = known ? AUDIT_PATH_CHARS : STRANGER_PATH_CHARS;
  return {
    requestId: record.requestId,
    merchantId: record.auth?.merchantId ?? null,
    apiKeyId: record.auth?.apiKeyId ?? null,
    mode: record.auth?.mode ?? null,
    method: record.method,
    path: record.path.length > pathChars ? record.path.slice(0, pathChars) : record.path,
    status: answer.status,
    latencyMs,
    clientIp: record.clientIp,
    userAgent: known || record.userAgent === null ? record.userAgent : record.userAgent.slice(0, STRANGER_AGENT_CHARS),
    requestBody: record.auditBodies
      ? answer.status >= 400
        ? record.auditBodies.refused
        : record.auditBodies.served
      : redactedBodyText(record.rawBody, answer.status >= 400 ? REFUSED_BODY_BYTES : undefined),
    responseBody: redactedBodyText(responseText),
    errorCode: answer.code,
    createdAt: new Date(),
    verification: record.audit.verification,
  };
}
