export { Parakh, type ParakhConfig } from "./client.js";
export { ApiPromise, PagedList, type Page } from "./api-promise.js";
export type { RequestOptions, ResponseMeta } from "./http.js";
export {
  ParakhError,
  AuthenticationError,
  PermissionError,
  InvalidRequestError,
  NotFoundError,
  ConflictError,
  IdempotencyError,
  RateLimitError,
  InsufficientBalanceError,
  UpstreamError,
  ServerError,
  ConnectionError,
  TimeoutError,
  SignatureVerificationError,
  type FieldError,
} from "./errors.js";
export { OPERATIONS, type OperationName, type AuthScheme } from "./operations.js";
export { constructEvent, type ConstructEventOptions } from "./webhooks.js";
export { verifyRedirect, type RedirectQuery, type VerifiedRedirect } from "./redirects.js";
export { VERSION } from "./version.js";
export type * from "./types.js";
