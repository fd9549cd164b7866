import http from "node:http";
import type { AddressInfo } from "node:net";
import { log } from "@/server/lib/logger";

/**
 * What the first sign-up loads besides the database: the sign-up page, the dashboard's tRPC route
 * (and with it every dashboard service) and next-auth's route. Next loads a route's code on its
 * first request, so each gets one quiet request here (the tRPC one answers 401, unsigned).
 */
const FIRST_SIGNUP_PATHS = ["/signup", "/api/trpc/account.me", "/api/auth/providers"];

function get(address: AddressInfo, path: string): Promise<void> {
  // A server listening on every address is reached on loopback.
  const host = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port: address.port, path, headers: { "user-agent": "parakh-warm-up" } }, (res) => {
      res.resume();
      res.on("end", resolve);
      res.on("error", reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error("timed out")));
    req.on("error", reject);
  });
}

/**
 * Warms the first sign-up after a start (measured: about 2.5 times the warm one otherwise) in the
 * background, once the server listens: readiness does not wait for it. A failure only means the
 * first merchant waits as before. The page thread warms the database side itself (warmSignupPath).
 */
export async function warmFirstSignup(server: http.Server): Promise<void> {
  const started = Date.now();
  try {
    const address = server.address();
    if (address && typeof address === "object") for (const path of FIRST_SIGNUP_PATHS) await get(address, path);
    log.debug("first sign-up warmed", { ms: Date.now() - started });
  } catch (err) {
    log.warn("warming the first sign-up failed", { err });
  }
}
