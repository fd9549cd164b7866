import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { APP_BODY_LIMIT, UPLOAD_BODY_LIMIT, pageRequestProblem } from "@/server/http/page-guard";

// Dashboard bodies are small, except a batch file's rows sent by a signed-in page to the two upload procedures.

const post = (length: number, headers: Record<string, string> = {}) =>
  ({ method: "POST", headers: { "content-type": "application/json", "content-length": String(length), ...headers } }) as unknown as IncomingMessage;

const signedIn = { cookie: "parakh_mode=sandbox; next-auth.session-token=eyJ.x.y", "x-parakh-csrf": "1" };

describe("pageRequestProblem body limits", () => {
  it("keeps tRPC bodies to 64 KiB", () => {
    expect(pageRequestProblem(post(APP_BODY_LIMIT), "/api/trpc/webhooks.create")).toBeNull();
    expect(pageRequestProblem(post(APP_BODY_LIMIT + 1, signedIn), "/api/trpc/webhooks.create")?.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("lets a signed-in page send a batch file to batches.preview and batches.create, up to the API's batch limit", () => {
    for (const path of ["/api/trpc/batches.preview", "/api/trpc/batches.create", "/api/trpc/batches.preview,batches.create"]) {
      expect(pageRequestProblem(post(2 * 1024 * 1024, signedIn), path), path).toBeNull();
      expect(pageRequestProblem(post(UPLOAD_BODY_LIMIT, signedIn), path), path).toBeNull();
      expect(pageRequestProblem(post(UPLOAD_BODY_LIMIT + 1, signedIn), path)?.code, path).toBe("PAYLOAD_TOO_LARGE");
    }
    expect(pageRequestProblem(post(2 * 1024 * 1024, { ...signedIn, cookie: "__Secure-next-auth.session-token.0=abc" }), "/api/trpc/batches.create")).toBeNull();
  });

  it("keeps the small limit without a session cookie or the CSRF header, or with another procedure in the same request", () => {
    const big = 2 * 1024 * 1024;
    expect(pageRequestProblem(post(big, { "x-parakh-csrf": "1" }), "/api/trpc/batches.create")?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(pageRequestProblem(post(big, { cookie: signedIn.cookie }), "/api/trpc/batches.create")?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(pageRequestProblem(post(big, { ...signedIn, cookie: "my-next-auth.session-token=x" }), "/api/trpc/batches.create")?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(pageRequestProblem(post(big, signedIn), "/api/trpc/batches.create,keys.create")?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(pageRequestProblem(post(big, signedIn), "/api/trpc/batches.list")?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(pageRequestProblem(post(big, signedIn), "/api/auth/callback/merchant")?.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});
