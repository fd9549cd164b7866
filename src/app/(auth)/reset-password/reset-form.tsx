"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import { resetPasswordInput } from "@/lib/schemas/security";
import { errorInfo, useTRPC } from "@/lib/trpc/client";

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
      <Link className="text-sm text-brand-600 hover:underline" href="/forgot-password">
        Ask for a new link
      </Link>
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
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
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
    if (password !== confirm) {
      setErrors({ confirm: "The two passwords differ" });
      return;
    }
    const parsed = resetPasswordInput.safeParse({ token: token ?? "", password });
    if (!parsed.success) {
      const fields = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
      setErrors(fields);
      if (fields.token) setError(fields.token);
      return;
    }
    setErrors({});
    try {
      const { role } = await reset.mutateAsync(parsed.data);
      router.replace(role === "admin" ? "/login?as=admin&notice=reset" : "/login?notice=reset");
    } catch (err) {
      const info = errorInfo(err);
      setErrors(info.fieldErrors);
      setError(info.fieldErrors.token ?? info.message);
    }
  }

  if (token === null) return <NoTokenNotice />;
  const deadLink = check.error ? errorInfo(check.error).fieldErrors.token : undefined;
  if (deadLink) return <DeadLinkNotice error={deadLink} />;

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <div>
        <h1 className="text-lg font-semibold">Choose a new password</h1>
        <p className="mt-1 text-sm text-slate-500">At least 10 characters. Every signed-in session ends, and sign-in is unlocked.</p>
      </div>
      {error && <ResetError error={error} tokenRefused={Boolean(errors.token)} />}
      <Field
        label="New password"
        type="password"
        name="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={errors.password}
        required
      />
      <Field
        label="New password again"
        type="password"
        name="confirm"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
        error={errors.confirm}
        required
      />
      <Button type="submit" className="w-full" loading={reset.isPending} disabled={token === undefined}>
        Set new password
      </Button>
    </form>
  );
}
