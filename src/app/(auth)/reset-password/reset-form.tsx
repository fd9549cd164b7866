"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Button, Notice } from "@/components/ui";
import { PasswordField, fieldErrors, useFormFields } from "@/components/ui/form";
import { resetPasswordInput } from "@/lib/schemas/security";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { AuthForm, AuthLink } from "../auth-form";

/** The token arrives in the URL fragment (#token=…), which never reaches a server log or a Referer. */
function tokenFromHash(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, "")).get("token");
}

/** Opened without the emailed link's token. */
function NoTokenNotice() {
  return (
    <div className="space-y-4">
      <h1 className="text-lg font-semibold">Choose a new password</h1>
      <Notice tone="error">This page needs the link from the reset email. Open the link from the email again, or ask for a new one.</Notice>
      <AuthLink className="text-sm" href="/forgot-password">
        Ask for a new link
      </AuthLink>
    </div>
  );
}

/** The link was used or has expired: said as soon as the page opens, with the way to a new one. */
function DeadLinkNotice({ error }: { error: string }) {
  return (
    <div className="space-y-4">
      <h1 className="text-lg font-semibold">Choose a new password</h1>
      <ResetError error={error} tokenRefused />
    </div>
  );
}

/** Why the reset failed; a used or expired link also gets the way to a new one. */
function ResetError({ error, tokenRefused }: { error: string; tokenRefused: boolean }) {
  return (
    <Notice tone="error">
      {error}{" "}
      {tokenRefused && (
        <Link className="font-medium underline" href="/forgot-password">
          Ask for a new link
        </Link>
      )}
    </Notice>
  );
}

export function ResetForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [token, setToken] = useState<string | null | undefined>(undefined);
  const form = useFormFields({ password: "", confirm: "" });
  const [error, setError] = useState<string | null>(null);
  const reset = useMutation(trpc.security.resetPassword.mutationOptions());
  const check = useMutation(trpc.security.checkResetLink.mutationOptions());
  const checkLink = check.mutate;

  useEffect(() => {
    const t = tokenFromHash(window.location.hash);
    setToken(t);
    // Keep the token out of the address bar and history once read.
    if (t) window.history.replaceState(null, "", window.location.pathname);
    // Ask at once whether the link still works, so a used or expired one is not found out only
    // after the new password is typed twice. A failed check (network) leaves the form usable.
    if (t) checkLink({ token: t });
  }, [checkLink]);

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    if (form.values.password !== form.values.confirm) {
      form.setErrors({ confirm: "The two passwords differ" });
      return;
    }
    const parsed = resetPasswordInput.safeParse({ token: token ?? "", password: form.values.password });
    if (!parsed.success) {
      const fields = fieldErrors(parsed.error.issues);
      form.setErrors(fields);
      if (fields.token) setError(fields.token);
      return;
    }
    form.setErrors({});
    try {
      const { role } = await reset.mutateAsync(parsed.data);
      router.replace(role === "admin" ? "/login?as=admin&notice=reset" : "/login?notice=reset");
    } catch (err) {
      const info = errorInfo(err);
      form.setErrors(info.fieldErrors);
      setError(info.fieldErrors.token ?? info.message);
    }
  }

  if (token === null) return <NoTokenNotice />;
  const deadLink = check.error ? errorInfo(check.error).fieldErrors.token : undefined;
  if (deadLink) return <DeadLinkNotice error={deadLink} />;

  return (
    <AuthForm title="Choose a new password" intro="At least 10 characters. Every signed-in session ends, and sign-in is unlocked." onSubmit={onSubmit}>
      {error && <ResetError error={error} tokenRefused={Boolean(form.errors.token)} />}
      <PasswordField purpose="new" label="New password" {...form.bind("password")} required />
      <PasswordField purpose="new" label="New password again" {...form.bind("confirm")} required />
      <Button type="submit" className="w-full" loading={reset.isPending} disabled={token === undefined}>
        Set new password
      </Button>
    </AuthForm>
  );
}
