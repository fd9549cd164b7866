"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";

const MESSAGES: Record<string, string> = {
  INVALID_CREDENTIALS: "That email and password do not match an account.",
  ACCOUNT_LOCKED: "Too many failed attempts: this account is locked for 15 minutes. Try again later.",
  TOO_MANY_ATTEMPTS: "Too many failed attempts from this network. Try again in 15 minutes.",
  TOTP_INVALID: "That code is not right. Use the current code from your authenticator app, or a recovery code.",
  SIGN_IN_FAILED: "We could not sign you in. Please try again.",
};

/** Only same-site paths: `next` must never send the user elsewhere after sign-in. */
function safeNext(value: string | null, fallback: string) {
  return value && value.startsWith("/") && !value.startsWith("//") ? value : fallback;
}

export function LoginForm() {
  const router = useRouter();
  const params = useSearchParams();
  const asAdmin = params.get("as") === "admin";
  const next = safeNext(params.get("next"), asAdmin ? "/admin" : "/dashboard");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needCode, setNeedCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    if (!email || !password) {
      setError("Enter your email and password.");
      return;
    }
    setPending(true);
    const res = await signIn(asAdmin ? "admin" : "merchant", { redirect: false, email, password, code: needCode ? code : "" });
    setPending(false);
    if (res?.ok && !res.error) {
      router.replace(next);
      router.refresh();
      return;
    }
    const codeName = res?.error ?? "SIGN_IN_FAILED";
    if (codeName === "TOTP_REQUIRED") {
      setNeedCode(true);
      return;
    }
    setError(MESSAGES[codeName] ?? MESSAGES.SIGN_IN_FAILED!);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <div>
        <h1 className="text-lg font-semibold">{asAdmin ? "Operator sign in" : "Sign in"}</h1>
        <p className="mt-1 text-sm text-slate-500">{asAdmin ? "For Parakh operators." : "Welcome back. Sign in to your dashboard."}</p>
      </div>
      {error && <Notice tone="error">{error}</Notice>}
      <Field label="Email" type="email" name="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
      <Field label="Password" type="password" name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
      {needCode && (
        <Field
          label="Authentication code"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          autoFocus
          hint="The 6-digit code from your authenticator app, or a recovery code."
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      )}
      <Button type="submit" className="w-full" loading={pending}>
        {needCode ? "Verify and sign in" : "Sign in"}
      </Button>
      <div className="flex justify-between text-sm">
        {asAdmin ? (
          <Link className="text-brand-600 hover:underline" href="/login">
            Merchant sign in
          </Link>
        ) : (
          <Link className="text-brand-600 hover:underline" href="/signup">
            Create an account
          </Link>
        )}
        {!asAdmin && (
          <Link className="text-slate-500 hover:underline" href="/login?as=admin">
            Operator?
          </Link>
        )}
      </div>
    </form>
  );
}
