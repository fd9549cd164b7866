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

type Step = "creating" | "signing-in" | "done" | null;

const STEP_LABELS: Record<NonNullable<Step>, [button: string, status: string]> = {
  creating: ["Creating your account…", "Creating your account and sandbox keys."],
  "signing-in": ["Signing you in…", "Account created. Signing you in."],
  done: ["Create account", ""],
};

/** The button names the step under way (the first sign-up after a server start takes longest); a status line reads it out. */
function SubmitButton({ step }: { step: Step }) {
  const [label, status] = step ? STEP_LABELS[step] : ["Create account", ""];
  return (
    <>
      <Button type="submit" className="w-full" loading={step !== null}>
        {label}
      </Button>
      <p role="status" className="sr-only">
        {status}
      </p>
    </>
  );
}

export function SignupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [form, setForm] = useState({ name: "", email: "", password: "" });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [firstKey, setFirstKey] = useState<FirstKey | null>(null);
  // From submit until the dashboard opens: creating the account, signing in, then the key dialog.
  const [step, setStep] = useState<Step>(null);
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
    setStep("creating");
    let created;
    try {
      created = await signup.mutateAsync(form);
    } catch (err) {
      const info = errorInfo(err);
      setFieldErrors(info.fieldErrors);
      setError(info.message);
      setStep(null);
      return;
    }
    // Signed in before the secret is shown, so leaving the page anyway still leaves a session.
    setStep("signing-in");
    const res = await signIn("merchant", { redirect: false, email: form.email, password: form.password });
    setStep("done");
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
        <SubmitButton step={step} />
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
