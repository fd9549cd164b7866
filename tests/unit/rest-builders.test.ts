import { describe, expect, it } from "vitest";
import { REST_OPERATIONS } from "@/server/api/rest-router";
import type { AuthScheme } from "@/server/rest/meta";

// A REST operation is declared from its meta and its parts (`restProcedure(meta, parts)`): the credentials it
// takes are stated once, in `meta.rest.auth`, which the door and the document read. These are the
// contract's schemes by path, written out here.
const SCHEME_BY_PATH: [RegExp, AuthScheme][] = [
  [/^\/v1\//, "bearer"],
  [/^\/api\/kyc\//, "kyc"],
  [/^\/api\/(checkout|payments|refunds|sandbox)(\/|$)/, "merchant"],
];

describe("REST operations", () => {
  it.each(REST_OPERATIONS.map((op) => [`${op.meta.openapi.method} ${op.meta.openapi.path}`, op] as const))(
    "%s takes the credentials of its path",
    (_name, op) => {
      const scheme = SCHEME_BY_PATH.find(([pattern]) => pattern.test(op.meta.openapi.path))?.[1];
      expect(scheme).toBeDefined();
      expect(op.meta.rest.auth).toBe(scheme);
    },
  );
});
