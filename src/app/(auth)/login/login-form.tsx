"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import { safeNextPath } from "@/lib/safe-next";

const MESSAGES: Record<string, string> = {
  INVALID_CREDENTIALS: "That email and password do not match an account.",
  ACCOUNT_LOCKED:
    "Too many wrong passwords from this device, so sign-in to this account is paused here for 15 minutes. Wait, or reset your password to unlock it now.",
  TOO_MANY_ATTEMPTS: "Too many failed attempts from this network. Try again in 15 minutes.",
  TOTP_INVALID: "That code is not right. Use the current code from your authenticator app, or a recovery code.",
  SIGN_IN_FAILED: "We could not sign you in. Please try again.",
};

/** Why the sign-in page was opened, from the page that sent the user here. */
const NOTICES: Record<string, string> = {
  ended: "Your session has ended (signed out everywhere, or the password changed). Please sign in again.",
  everywhere: "You are signed out on every device.",
  changed: "Your password is changed and every session is signed out. Sign in with the new password.",
  reset: "Your password is reset. Sign in with the new password.",
};

/** Why sign-in failed; a locked account also gets the way to unlock it. */
function SignInError({ error, errorCode, forgotHref }: { error: string; errorCode: string | null; forgotHref: string }) {
  return (
    <Notice tone="error">
      {error}
      {errorCode === "ACCOUNT_LOCKED" && (
        <>
          {" "}
          <Link className="font-medium underline" href={forgotHref}>
            Reset your password
          </Link>
        </>
      )}
    </Notice>
  );
}

/** Sign-up, or the other door (merchant / operator). */
function OtherSignInLinks({ asAdmin }: { asAdmin: boolean }) {
  return (
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
  );
}

/** Only same-site paths: `next` must never send the user elsewhere after sign-in. */
export function LoginForm() {
  const router = useRouter();
  const params = useSearchParams();
  const asAdmin = params.get("as") === "admin";
  const next = safeNextPath(params.get("next"), asAdmin ? "/admin" : "/dashboard");
  const notice = NOTICES[params.get("notice") ?? (params.get("ended") ? "ended" : "")];
  const forgotHref = `/forgot-password${asAdmin ? "?as=admin" : ""}`;
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needCode, setNeedCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errorCode, setErrorCode] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    setErrorCode(null);
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
    setErrorCode(codeName);
    setError(MESSAGES[codeName] ?? MESSAGES.SIGN_IN_FAILED!);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <div>
        <h1 className="text-lg font-semibold">{asAdmin ? "Operator sign in" : "Sign in"}</h1>
        <p className="mt-1 text-sm text-slate-500">{asAdmin ? "For Parakh operators." : "Welcome back. Sign in to your dashboard."}</p>
      </div>
      {notice && !error && <Notice tone="info">{notice}</Notice>}
      {error && <SignInError error={error} errorCode={errorCode} forgotHref={forgotHref} />}
      <Field label="Email" type="email" name="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
      <Field
        label="Password"
        type="password"
        name="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        required
      />
      <p className="-mt-2 text-right text-sm">
        <Link className="text-brand-600 hover:underline" href={forgotHref}>
          Forgot your password?
        </Link>
      </p>
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
      <OtherSignInLinks asAdmin={asAdmin} />
    </form>
  );
}
