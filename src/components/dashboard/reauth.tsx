"use client";

import { useMutation } from "@tanstack/react-query";
import { createContext, useCallback, useContext, useRef, useState } from "react";
import { Button, Dialog, DialogActions } from "@/components/ui";
import { PasswordField } from "@/components/ui/form";
import { confirmPasswordInput } from "@/lib/schemas/security";
import { errorInfo, useTRPC } from "@/components/trpc/client";

/** The merchant closed the "Confirm your password" dialog: the act is dropped without an error to show. */
export class ReauthCancelled extends Error {
  constructor() {
    super("Password confirmation cancelled.");
    this.name = "ReauthCancelled";
  }
}

export const isReauthCancelled = (err: unknown) => err instanceof ReauthCancelled;

/** Runs `act` with a fresh password confirmation, asking for the password first when none is at hand. */
type WithReauth = <T>(purpose: string, act: (proof: string) => Promise<T>) => Promise<T>;

const ReauthContext = createContext<WithReauth | null>(null);

/** A proof this close to its end is not used: the act could reach the server after it. */
const EXPIRY_MARGIN_MS = 30_000;

interface Ask {
  purpose: string;
  resolve: (proof: string) => void;
  reject: (err: Error) => void;
}

/**
 * Sensitive acts (the signing secret, live keys, two-factor sign-in, recovery codes) need the password
 * confirmed, as Stripe asks; the server refuses them with REAUTH_REQUIRED otherwise. The proof a
 * confirmation answers is kept in this page's memory only (never in storage) and reused until it
 * nearly expires (10 minutes), so a merchant doing several such acts types the password once.
 */
/** The question itself: the password, checked by the server, answered with a proof (or null when cancelled). */
function ReauthDialog({ ask, onDone }: { ask: Ask | null; onDone: (answer: { proof: string; expiresAt: string } | null) => void }) {
  const trpc = useTRPC();
  const confirm = useMutation(trpc.security.confirmPassword.mutationOptions());
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();

  function done(answer: { proof: string; expiresAt: string } | null) {
    setPassword("");
    setError(undefined);
    onDone(answer);
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const parsed = confirmPasswordInput.safeParse({ password });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    try {
      done(await confirm.mutateAsync(parsed.data));
    } catch (err) {
      const info = errorInfo(err);
      setError(info.fieldErrors.password ?? info.message);
    }
  }

  return (
    <Dialog open={ask !== null} onClose={() => done(null)} title="Confirm your password">
      <form className="space-y-4" onSubmit={submit} noValidate>
        <p className="text-sm text-slate-600">To {ask?.purpose}, enter your account password. You won&apos;t be asked again for the next 10 minutes.</p>
        <PasswordField
          purpose="current"
          label="Password"
          name="password"
          autoFocus
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            setError(undefined);
          }}
          error={error}
        />
        <DialogActions onCancel={() => done(null)}>
          <Button type="submit" loading={confirm.isPending}>
            Confirm
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

/**
 * Sensitive acts (the signing secret, live keys, two-factor sign-in, recovery codes) need the password
 * confirmed, as Stripe asks; the server refuses them with REAUTH_REQUIRED otherwise. The proof a
 * confirmation answers is kept in this page's memory only (never in storage) and reused until it
 * nearly expires (10 minutes), so a merchant doing several such acts types the password once.
 */
export function ReauthProvider({ children }: { children: React.ReactNode }) {
  const held = useRef<{ proof: string; expiresAt: number } | null>(null);
  const [ask, setAsk] = useState<Ask | null>(null);

  const proofFor = useCallback((purpose: string) => {
    const p = held.current;
    if (p && p.expiresAt - Date.now() > EXPIRY_MARGIN_MS) return Promise.resolve(p.proof);
    held.current = null;
    return new Promise<string>((resolve, reject) =>
      setAsk((earlier) => {
        // One question at a time: an act still waiting for the password is dropped.
        earlier?.reject(new ReauthCancelled());
        return { purpose, resolve, reject };
      }),
    );
  }, []);

  const withReauth = useCallback<WithReauth>(
    async (purpose, act) => {
      const proof = await proofFor(purpose);
      try {
        return await act(proof);
      } catch (err) {
        // Ended on the server (signed out elsewhere, the clock): ask once more.
        if (errorInfo(err).appCode !== "REAUTH_REQUIRED") throw err;
        held.current = null;
        return act(await proofFor(purpose));
      }
    },
    [proofFor],
  );

  function answered(answer: { proof: string; expiresAt: string } | null) {
    if (!ask) return;
    if (answer) {
      held.current = { proof: answer.proof, expiresAt: Date.parse(answer.expiresAt) };
      ask.resolve(answer.proof);
    } else ask.reject(new ReauthCancelled());
    setAsk(null);
  }

  return (
    <ReauthContext.Provider value={withReauth}>
      {children}
      <ReauthDialog ask={ask} onDone={answered} />
    </ReauthContext.Provider>
  );
}

/** `withReauth(purpose, act)`: `purpose` completes "To …, enter your account password." */
export function useReauth(): WithReauth {
  const value = useContext(ReauthContext);
  if (!value) throw new Error("useReauth needs a ReauthProvider");
  return value;
}
