"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import { EmailField, PasswordField, useFormFields } from "@/components/ui/form";
import { signupInput } from "@/lib/schemas/account";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { AuthForm, AuthLink } from "../auth-form";
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
  const form = useFormFields({ name: "", email: "", password: "" });
  const [error, setError] = useState<string | null>(null);
  const [firstKey, setFirstKey] = useState<FirstKey | null>(null);
  // From submit until the dashboard opens: creating the account, signing in, then the key dialog.
  const [step, setStep] = useState<Step>(null);
  const signup = useMutation(trpc.account.signup.mutationOptions());

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    if (!form.check(signupInput)) return;
    setStep("creating");
    let created;
    try {
      created = await signup.mutateAsync(form.values);
    } catch (err) {
      const info = errorInfo(err);
      form.setErrors(info.fieldErrors);
      setError(info.message);
      setStep(null);
      return;
    }
    // Signed in before the secret is shown, so leaving the page anyway still leaves a session.
    setStep("signing-in");
    const res = await signIn("merchant", { redirect: false, email: form.values.email, password: form.values.password });
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

  return (
    <>
      <AuthForm title="Create your account" intro="Start in sandbox with test keys and ₹10,000.00 of test credit." onSubmit={onSubmit}>
        {error && <Notice tone="error">{error}</Notice>}
        <Field label="Business name" autoComplete="organization" {...form.bind("name")} />
        <EmailField label="Work email" autoComplete="email" {...form.bind("email")} />
        <PasswordField purpose="new" label="Password" {...form.bind("password")} hint="At least 10 characters." />
        <SubmitButton step={step} />
        <p className="text-center text-sm text-slate-500">
          Already have an account? <AuthLink href="/login">Sign in</AuthLink>
        </p>
      </AuthForm>
      {/* Outside the form: its buttons must not submit the sign-up again. */}
      <SecretOnceDialog shown={firstKey?.key ?? null} title="Your sandbox API key" firstCall={firstKey?.firstCall} onDone={leave} />
    </>
  );
}
