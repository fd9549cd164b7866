"use client";

import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button, Dialog, DialogActions, useToast } from "@/components/ui";
import { PasswordField, fieldErrors, useFormFields } from "@/components/ui/form";
import { changePasswordInput } from "@/lib/schemas/security";
import { errorInfo, useTRPC } from "@/components/trpc/client";

// A password change and "sign out everywhere" end every session, this browser's too: the page then
// signs out here and asks for a fresh sign-in (no path re-issues a session a stolen cookie could use).

export function PasswordChange() {
  const trpc = useTRPC();
  const toast = useToast();
  const change = useMutation(trpc.security.changePassword.mutationOptions());
  const form = useFormFields({ currentPassword: "", newPassword: "", confirm: "" });

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    const parsed = changePasswordInput.safeParse(form.values);
    const errors: Record<string, string> = parsed.success ? {} : fieldErrors(parsed.error.issues);
    if (form.values.newPassword !== form.values.confirm) errors.confirm = "The two new passwords differ";
    form.setErrors(errors);
    if (!parsed.success || errors.confirm) return;
    try {
      await change.mutateAsync(parsed.data);
      await signOut({ callbackUrl: "/login?notice=changed" });
    } catch (err) {
      const info = errorInfo(err);
      form.setErrors(info.fieldErrors);
      if (!Object.keys(info.fieldErrors).length) toast("error", info.message);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="grid max-w-xl gap-4 sm:grid-cols-2">
      <PasswordField purpose="current" className="sm:col-span-2" label="Current password" {...form.bind("currentPassword")} />
      <PasswordField purpose="new" label="New password" {...form.bind("newPassword")} hint="At least 10 characters." />
      <PasswordField purpose="new" label="New password again" {...form.bind("confirm")} />
      <div className="sm:col-span-2">
        <Button type="submit" loading={change.isPending}>
          Change password
        </Button>
        <p className="mt-2 text-xs text-slate-500">Every session ends, this one too: you sign in again with the new password.</p>
      </div>
    </form>
  );
}

export function SignOutEverywhere() {
  const trpc = useTRPC();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const everywhere = useMutation(trpc.security.signOutEverywhere.mutationOptions());
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm text-slate-600">Lost a device or signed in somewhere shared? End every session, on every device, this one included.</p>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Sign out everywhere
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Sign out everywhere?">
        <div className="space-y-4">
          <p className="text-sm text-slate-600">
            Every browser signed in to this account is signed out within seconds, including this one. API keys keep working.
          </p>
          <DialogActions onCancel={() => setOpen(false)}>
            <Button
              variant="danger"
              loading={everywhere.isPending}
              onClick={async () => {
                try {
                  await everywhere.mutateAsync();
                  await signOut({ callbackUrl: "/login?notice=everywhere" });
                } catch (err) {
                  toast("error", errorInfo(err).message);
                }
              }}
            >
              Sign out everywhere
            </Button>
          </DialogActions>
        </div>
      </Dialog>
    </div>
  );
}
