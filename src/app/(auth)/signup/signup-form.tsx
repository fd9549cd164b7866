"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import { signupInput } from "@/lib/schemas/account";
import { errorInfo, useTRPC } from "@/lib/trpc/client";
import { SecretOnceDialog, type FirstCallContext, type ShownOnceKey } from "@/components/dashboard/secret-once-dialog";

/** The new account's sandbox key, shown once before the merchant moves on. */
interface FirstKey {
  key: ShownOnceKey;
  firstCall: FirstCallContext;
  /** Where "I've saved it" leads: the dashboard, or sign-in if the automatic sign-in failed. */
  next: "/dashboard" | "/login";
}

export function SignupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [form, setForm] = useState({ name: "", email: "", password: "" });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [firstKey, setFirstKey] = useState<FirstKey | null>(null);
  // From submit until the dashboard opens: sign-up, then sign-in, then the key dialog.
  const [busy, setBusy] = useState(false);
  const signup = useMutation(trpc.account.signup.mutationOptions());

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    const parsed = signupInput.safeParse(form);
    if (!parsed.success) {
      setFieldErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setFieldErrors({});
    setBusy(true);
    let created;
    try {
      created = await signup.mutateAsync(form);
    } catch (err) {
      const info = errorInfo(err);
      setFieldErrors(info.fieldErrors);
      setError(info.message);
      setBusy(false);
      return;
    }
    // Signed in before the secret is shown, so leaving the page anyway still leaves a session.
    const res = await signIn("merchant", { redirect: false, email: form.email, password: form.password });
    setFirstKey({
      key: created.sandboxKey,
      firstCall: { merchantId: created.merchantId, apiBaseUrls: created.apiBaseUrls },
      next: res?.ok && !res.error ? "/dashboard" : "/login",
    });
  }

  function leave() {
    if (!firstKey) return;
    const next = firstKey.next;
    setFirstKey(null);
    router.replace(next);
    router.refresh();
  }

  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [k]: e.target.value }));

  return (
    <>
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        <div>
          <h1 className="text-lg font-semibold">Create your account</h1>
          <p className="mt-1 text-sm text-slate-500">Start in sandbox with test keys and ₹10,000.00 of test credit.</p>
        </div>
        {error && <Notice tone="error">{error}</Notice>}
        <Field label="Business name" name="name" autoComplete="organization" value={form.name} onChange={set("name")} error={fieldErrors.name} />
        <Field label="Work email" type="email" name="email" autoComplete="email" value={form.email} onChange={set("email")} error={fieldErrors.email} />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          value={form.password}
          onChange={set("password")}
          error={fieldErrors.password}
          hint="At least 10 characters."
        />
        <Button type="submit" className="w-full" loading={busy}>
          Create account
        </Button>
        <p className="text-center text-sm text-slate-500">
          Already have an account?{" "}
          <Link className="text-brand-600 hover:underline" href="/login">
            Sign in
          </Link>
        </p>
      </form>
      {/* Outside the form: its buttons must not submit the sign-up again. */}
      <SecretOnceDialog shown={firstKey?.key ?? null} title="Your sandbox API key" firstCall={firstKey?.firstCall} onDone={leave} />
    </>
  );
}
