import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { safeNextPath } from "@/lib/safe-next";
import { authOptions, type Role } from "@/server/auth/options";
import { resolveAdminContext, resolveMerchantContext } from "@/server/services/accounts/sessions";
import { getServices } from "@/server/services";

function signInUrl(role: Role, next: string, ended = false) {
  return `/login?next=${encodeURIComponent(next)}${role === "admin" ? "&as=admin" : ""}${ended ? "&ended=1" : ""}`;
}

/**
 * The signed-in user of a server component, or a redirect to /login (also when the session was
 * revoked) that comes back to the page asked for, or to `fallback`.
 */
export async function requireUser(role: Role, fallback: string) {
  const next = safeNextPath((await headers()).get("x-parakh-page-path"), fallback);
  const session = await getServerSession(authOptions());
  const user = session?.user?.id ? session.user : null;
  const resolve = role === "merchant" ? resolveMerchantContext : resolveAdminContext;
  const resolved = await resolve(getServices().db, user);
  if (!resolved.ok) redirect(signInUrl(role, next, resolved.refusal === "SESSION_ENDED"));
  return user!;
}
