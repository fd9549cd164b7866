"use client";

import { useEffect, useState } from "react";
import { cardNetworkName } from "@/components/checkout/parts";
import type { ActionResult, PayPayload } from "@/components/checkout/types";
import { Button, Field, Notice } from "@/components/ui";
import type { z } from "zod";
import { cardSchema } from "@/lib/schemas/checkout";
// Pure helpers (no server imports): the same Luhn check and network rules the processor applies.
import { cardNetwork, cvvHint, cvvProblem, luhnValid } from "@/lib/cards";

type CardInput = z.infer<typeof cardSchema>;
type CardErrors = Partial<Record<"number" | "expiry" | "cvv" | "name", string>>;

/** 4111111111111111 → "4111 1111 1111 1111"; Amex as 4-6-5. */
function groupCardNumber(digits: string): string {
  if (/^3[47]/.test(digits)) return [digits.slice(0, 4), digits.slice(4, 10), digits.slice(10, 15)].filter(Boolean).join(" ");
  return digits.replace(/(\d{4})(?=\d)/g, "$1 ");
}

/** "1228" → "12 / 28"; a leading 2–9 is a month on its own ("4" → "04 / "). */
function formatExpiry(raw: string, previous: string): string {
  // Autofill may give a four-digit year ("12/2028").
  const full = /^\s*(\d{1,2})\s*\/\s*\d{2}(\d{2})\s*$/.exec(raw);
  if (full) return `${full[1]!.padStart(2, "0")} / ${full[2]}`;
  let d = raw.replace(/\D/g, "").slice(0, 4);
  if (d.length === 1 && Number(d) > 1) d = `0${d}`;
  // Deleting the separator deletes the month's last digit too, so backspace never gets stuck.
  if (raw.length < previous.length && previous.endsWith(" / ") && d.length === 2) d = d.slice(0, 1);
  return d.length > 2 || (d.length === 2 && raw.length > previous.length) ? `${d.slice(0, 2)} / ${d.slice(2)}` : d;
}

/** Field for a server error path like "payment.card.number" or "number". */
function fieldOf(path: string): keyof CardErrors | null {
  const last = path.split(".").pop() ?? "";
  if (last === "expiryMonth" || last === "expiryYear") return "expiry";
  return last === "number" || last === "cvv" || last === "name" ? last : null;
}

/** The server's field errors that belong to the card's fields. */
function cardErrorsFrom(fieldErrors: Record<string, string>): CardErrors {
  const errors: CardErrors = {};
  for (const [path, message] of Object.entries(fieldErrors)) {
    const f = fieldOf(path);
    if (f) errors[f] = message;
  }
  return errors;
}

/** The card as the processor takes it, or the errors by field that keep it from being sent. */
function checkCard(digits: string, expiry: string, cvv: string, name: string): { card: CardInput | null; errors: CardErrors } {
  const [mm = "", yy = ""] = expiry.split("/").map((s) => s.trim());
  const candidate = { number: digits, expiryMonth: mm, expiryYear: yy, cvv, name: name.trim() || undefined };
  const parsed = cardSchema.safeParse(candidate);
  const next: CardErrors = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const f = fieldOf(issue.path.join("."));
      if (f && !next[f]) next[f] = issue.message;
    }
  }
  if (!mm || !yy) next.expiry = "Enter the expiry as MM / YY";
  // Said whatever else is wrong, and in the hint's words (the schema checks it only once the rest parses).
  const cvvWrong = cvvProblem(digits, cvv);
  if (cvvWrong) next.cvv = cvvWrong;
  if (!next.number && !luhnValid(digits)) next.number = "Check the card number; it isn't valid";
  return { card: Object.keys(next).length > 0 || !parsed.success ? null : parsed.data, errors: next };
}

/** The card number, grouped as typed, with the network's name shown once it is known. */
function CardNumberField({ number, onChange, error, sandbox }: { number: string; onChange: (v: string) => void; error?: string; sandbox: boolean }) {
  const digits = number.replace(/\D/g, "");
  const network = digits.length >= 2 ? cardNetwork(digits) : null;
  return (
    <div className="relative">
      <Field
        label="Card number"
        value={number}
        onChange={(e) => onChange(groupCardNumber(e.target.value.replace(/\D/g, "").slice(0, 19)))}
        error={error}
        hint={sandbox ? "Sandbox: 4111 1111 1111 1111 pays, 4000 0000 0000 0002 is declined." : undefined}
        inputMode="numeric"
        autoComplete="cc-number"
        placeholder="1234 5678 9012 3456"
        maxLength={23}
      />
      {network && network !== "CARD" && (
        <span className="pointer-events-none absolute right-2 top-[2.1rem] rounded bg-slate-100 px-1.5 py-0.5 text-[11px] font-semibold text-slate-600">
          {cardNetworkName(network)}
        </span>
      )}
    </div>
  );
}

/** Expiry and CVV side by side; the CVV's hint and length follow the card's network. */
function ExpiryAndCvv({
  digits,
  expiry,
  onExpiry,
  cvv,
  onCvv,
  errors,
}: {
  digits: string;
  expiry: string;
  onExpiry: (v: string) => void;
  cvv: string;
  onCvv: (v: string) => void;
  errors: CardErrors;
}) {
  const isAmex = digits.length >= 2 && cardNetwork(digits) === "AMEX";
  return (
    <div className="grid grid-cols-2 gap-3">
      <Field
        label="Expiry (MM / YY)"
        value={expiry}
        onChange={(e) => onExpiry(formatExpiry(e.target.value, expiry))}
        error={errors.expiry}
        inputMode="numeric"
        autoComplete="cc-exp"
        placeholder="MM / YY"
        maxLength={7}
      />
      <Field
        label="CVV"
        type="password"
        value={cvv}
        onChange={(e) => onCvv(e.target.value.replace(/\D/g, "").slice(0, 4))}
        error={errors.cvv}
        hint={cvvHint(digits)}
        inputMode="numeric"
        autoComplete="cc-csc"
        placeholder={isAmex ? "••••" : "•••"}
        maxLength={4}
      />
    </div>
  );
}

/**
 * Card entry. The values live only in this component's state: never logged, never written to
 * storage, and gone once the form unmounts (an outcome screen replaces it).
 */
export function CardForm({
  amountLabel,
  sandbox,
  busy,
  onPay,
}: {
  amountLabel: string;
  sandbox: boolean;
  busy: boolean;
  onPay: (payment: PayPayload) => Promise<ActionResult>;
}) {
  const [number, setNumber] = useState("");
  const [expiry, setExpiry] = useState("");
  const [cvv, setCvv] = useState("");
  const [name, setName] = useState("");
  const [errors, setErrors] = useState<CardErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [ready, setReady] = useState(false);
  // Until scripts run, the Pay button stays disabled rather than doing a native form submit.
  useEffect(() => setReady(true), []);

  const digits = number.replace(/\D/g, "");

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    const checked = checkCard(digits, expiry, cvv, name);
    setErrors(checked.errors);
    if (!checked.card) return;

    setSubmitting(true);
    const res = await onPay({ method: "CARD", card: checked.card });
    setSubmitting(false);
    if (!res.ok) {
      const fromServer = cardErrorsFrom(res.fieldErrors);
      setErrors(fromServer);
      if (Object.keys(fromServer).length === 0) setError(res.message);
    }
  }

  return (
    // No `name` attributes: card data can never leave through a native form submit (e.g. a query string).
    <form onSubmit={submit} noValidate className="space-y-4" aria-label="Card details">
      {error && <Notice tone="error">{error}</Notice>}
      <CardNumberField
        number={number}
        onChange={(v) => {
          setNumber(v);
          // The CVV's length follows the network: an error about it is stale once the number changes.
          if (errors.cvv) setErrors(({ cvv: _, ...rest }) => rest);
        }}
        error={errors.number}
        sandbox={sandbox}
      />
      <ExpiryAndCvv digits={digits} expiry={expiry} onExpiry={setExpiry} cvv={cvv} onCvv={setCvv} errors={errors} />
      <Field
        label="Name on card (optional)"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={errors.name}
        autoComplete="cc-name"
        maxLength={100}
      />
      <Button type="submit" className="w-full py-3" loading={submitting} disabled={busy || !ready}>
        Pay {amountLabel}
      </Button>
    </form>
  );
}
