"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import { signupInput } from "@/lib/schemas/account";
import { errorInfo, useTRPC } from "@/lib/trpc/client";

export function SignupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [form, setForm] = useState({ name: "", email: "", password: "" });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
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
    try {
      await signup.mutateAsync(form);
    } catch (err) {
      const info = errorInfo(err);
      setFieldErrors(info.fieldErrors);
      setError(info.message);
      return;
    }
    const res = await signIn("merchant", { redirect: false, email: form.email, password: form.password });
    if (res?.ok && !res.error) {
      router.replace("/dashboard");
      router.refresh();
    } else {
      router.replace("/login");
    }
  }

  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [k]: e.target.value }));

  return (
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
      <Button type="submit" className="w-full" loading={signup.isPending}>
        Create account
      </Button>
      <p className="text-center text-sm text-slate-500">
        Already have an account?{" "}
        <Link className="text-brand-600 hover:underline" href="/login">
          Sign in
        </Link>
      </p>
    </form>
  );
}
