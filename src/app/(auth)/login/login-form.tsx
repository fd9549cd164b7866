"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import { EmailField, PasswordField } from "@/components/ui/form";
import { safeNextPath } from "@/lib/safe-next";
import { AuthForm, AuthLink } from "../auth-form";

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
      {asAdmin ? <AuthLink href="/login">Merchant sign in</AuthLink> : <AuthLink href="/signup">Create an account</AuthLink>}
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
    <AuthForm
      title={asAdmin ? "Operator sign in" : "Sign in"}
      intro={asAdmin ? "For Parakh operators." : "Welcome back. Sign in to your dashboard."}
      onSubmit={onSubmit}
    >
      {notice && !error && <Notice tone="info">{notice}</Notice>}
      {error && <SignInError error={error} errorCode={errorCode} forgotHref={forgotHref} />}
      <EmailField label="Email" value={email} onChange={(e) => setEmail(e.target.value)} required />
      <PasswordField purpose="current" label="Password" name="password" value={password} onChange={(e) => setPassword(e.target.value)} required />
      <p className="-mt-2 text-right text-sm">
        <AuthLink href={forgotHref}>Forgot your password?</AuthLink>
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
    </AuthForm>
  );
}
