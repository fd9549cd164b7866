import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getConfig } from "@/server/config";
import { randomToken } from "@/server/lib/ids";
import { getServices } from "@/server/services";
import { SignInError, signInAdmin, signInMerchant, type SignedIn } from "@/server/services/accounts/sign-in";
import { DEVICE_TOKEN_MAX_AGE_SECONDS, deviceCookieName } from "@/server/services/accounts/device-cookies";

/** Header set by server.ts with the client IP it resolved (clients cannot set it). */
const CLIENT_IP_HEADER = "x-parakh-client-ip";

function clientIp(req: { headers?: Record<string, unknown> } | undefined): string {
  const v = req?.headers?.[CLIENT_IP_HEADER];
  return typeof v === "string" ? v : "unknown";
}

/** The value of one cookie of the request (next-auth hands `authorize` the request's headers). */
function requestCookie(req: { headers?: Record<string, unknown> } | undefined, name: string): string | null {
  const header = req?.headers?.cookie;
  if (typeof header !== "string") return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Collects the Set-Cookie values a sign-in adds to next-auth's response (the route handler appends them). */
export interface CookieSink {
  cookies: string[];
}

/** The browser keeps its device token for this account: sent only to the sign-in endpoints, never readable by scripts. */
function deviceCookie(user: SignedIn): string {
  const secure = getConfig().appUrl.startsWith("https:") ? "; Secure" : "";
  return `${deviceCookieName(user.role, user.email)}=${user.deviceToken}; Path=/api/auth; Max-Age=${DEVICE_TOKEN_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure}`;
}

export type Role = "merchant" | "admin";

declare module "next-auth" {
  interface Session {
    user: { id: string; email: string; name: string; role: Role; sessionVersion: number };
  }
  interface User {
    role: Role;
    sessionVersion: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    role?: Role;
    /** The account's session version at sign-in; bumping the account's ends this session. */
    sv?: number;
    /** This session's id, set at sign-in: a password confirmation (services/accounts/reauth.ts) is bound to it. */
    sid?: string;
  }
}

async function authorizeWith<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // next-auth passes a thrown message to the sign-in page as `error`; only our codes leave here.
    if (err instanceof SignInError) throw new Error(err.code);
    throw new Error("SIGN_IN_FAILED");
  }
}

export function authOptions(sink?: CookieSink): NextAuthOptions {
  const config = getConfig();
  return {
    secret: config.secrets.nextAuthSecret,
    session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        id: "merchant",
        name: "Merchant",
        credentials: { email: { type: "email" }, password: { type: "password" }, code: { type: "text" } },
        authorize: (credentials, req) =>
          authorizeWith(async () => {
            const user = await signInMerchant(
              getServices().db,
              {
                email: String(credentials?.email ?? ""),
                password: String(credentials?.password ?? ""),
                code: credentials?.code ? String(credentials.code) : null,
                deviceToken: requestCookie(req, deviceCookieName("merchant", String(credentials?.email ?? ""))),
              },
              clientIp(req),
            );
            sink?.cookies.push(deviceCookie(user));
            return { id: user.id, email: user.email, name: user.name, role: user.role, sessionVersion: user.sessionVersion };
          }),
      }),
      CredentialsProvider({
        id: "admin",
        name: "Operator",
        credentials: { email: { type: "email" }, password: { type: "password" } },
        authorize: (credentials, req) =>
          authorizeWith(async () => {
            const user = await signInAdmin(
              getServices().db,
              {
                email: String(credentials?.email ?? ""),
                password: String(credentials?.password ?? ""),
                deviceToken: requestCookie(req, deviceCookieName("admin", String(credentials?.email ?? ""))),
              },
              clientIp(req),
            );
            sink?.cookies.push(deviceCookie(user));
            return { id: user.id, email: user.email, name: user.name, role: user.role, sessionVersion: user.sessionVersion };
          }),
      }),
    ],
    callbacks: {
      // Set at sign-in only: a session update cannot raise the version of a revoked token.
      jwt({ token, user }) {
        if (user) {
          token.role = user.role;
          token.sv = user.sessionVersion;
          token.sid = randomToken(16);
        }
        return token;
      },
      session({ session, token }) {
        session.user = { id: token.sub ?? "", email: token.email ?? "", name: token.name ?? "", role: token.role ?? "merchant", sessionVersion: token.sv ?? 0 };
        return session;
      },
    },
  };
}
