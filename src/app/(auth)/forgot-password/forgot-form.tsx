"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import { requestResetInput } from "@/lib/schemas/security";
import { errorInfo, useTRPC } from "@/lib/trpc/client";

export function ForgotForm() {
  const trpc = useTRPC();
  const asAdmin = useSearchParams().get("as") === "admin";
  const [email, setEmail] = useState("");
  const [fieldError, setFieldError] = useState<string>();
  const [error, setError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const request = useMutation(trpc.security.requestPasswordReset.mutationOptions());
  const loginHref = asAdmin ? "/login?as=admin" : "/login";

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    const parsed = requestResetInput.safeParse({ email, as: asAdmin ? "admin" : "merchant" });
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message);
      return;
    }
    setFieldError(undefined);
    try {
      await request.mutateAsync(parsed.data);
      setSentTo(parsed.data.email);
    } catch (err) {
      setError(errorInfo(err).message);
    }
  }

  if (sentTo) {
    return (
      <div className="space-y-4">
        <h1 className="text-lg font-semibold">Check your email</h1>
        {/* The same words whether or not the email has an account. */}
        <Notice tone="success">
          If {sentTo} belongs to {asAdmin ? "an operator" : "an account"}, a link to reset its password is on its way. The link works once, for 30 minutes.
        </Notice>
        <p className="text-sm text-slate-600">Nothing after a few minutes? Check your spam folder, or ask support for help.</p>
        <Link className="text-sm text-brand-600 hover:underline" href={loginHref}>
          Back to sign in
        </Link>
      </div>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <div>
        <h1 className="text-lg font-semibold">{asAdmin ? "Reset your operator password" : "Reset your password"}</h1>
        <p className="mt-1 text-sm text-slate-500">
          Enter the email you sign in with. We will send you a link to choose a new password; it also unlocks sign-in.
        </p>
      </div>
      {error && <Notice tone="error">{error}</Notice>}
      <Field
        label="Email"
        type="email"
        name="email"
        autoComplete="username"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={fieldError}
        required
      />
      <Button type="submit" className="w-full" loading={request.isPending}>
        Email me a reset link
      </Button>
      <p className="text-sm">
        <Link className="text-brand-600 hover:underline" href={loginHref}>
          Back to sign in
        </Link>
      </p>
    </form>
  );
}
