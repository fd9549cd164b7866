import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { authOptions, type Role } from "@/server/auth/options";

/** The signed-in user of a server component, or a redirect to /login. */
export async function requireUser(role: Role, next: string) {
  const session = await getServerSession(authOptions());
  if (!session?.user?.id || session.user.role !== role) {
    redirect(`/login?next=${encodeURIComponent(next)}${role === "admin" ? "&as=admin" : ""}`);
  }
  return session.user;
}

export async function currentUser() {
  const session = await getServerSession(authOptions());
  return session?.user ?? null;
}
