import NextAuth from "next-auth";
import { authOptions, type CookieSink } from "@/server/auth/options";

const handler = async (req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) => {
  // A successful sign-in also gives the browser its device cookie for that account.
  const sink: CookieSink = { cookies: [] };
  const res = await NextAuth(authOptions(sink))(req, ctx);
  for (const cookie of sink.cookies) res.headers.append("Set-Cookie", cookie);
  return res;
};

export { handler as GET, handler as POST };
