"use client";

import { useMutation } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { Button, Notice } from "@/components/ui";
import { EmailField } from "@/components/ui/form";
import { requestResetInput } from "@/lib/schemas/security";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { AuthForm, AuthLink } from "../auth-form";

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
        <AuthLink className="text-sm" href={loginHref}>
          Back to sign in
        </AuthLink>
      </div>
    );
  }

  return (
    <AuthForm
      title={asAdmin ? "Reset your operator password" : "Reset your password"}
      intro="Enter the email you sign in with. We will send you a link to choose a new password; it also unlocks sign-in."
      onSubmit={onSubmit}
    >
      {error && <Notice tone="error">{error}</Notice>}
      <EmailField label="Email" value={email} onChange={(e) => setEmail(e.target.value)} error={fieldError} required />
      <Button type="submit" className="w-full" loading={request.isPending}>
        Email me a reset link
      </Button>
      <p className="text-sm">
        <AuthLink href={loginHref}>Back to sign in</AuthLink>
      </p>
    </AuthForm>
  );
}
