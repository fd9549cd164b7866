"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button, Dialog, DialogActions, Field, Notice, useToast } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { ALL_EVENTS, WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES, webhookCreateInput, webhookUpdateInput } from "@/lib/schemas/webhooks";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";

export type Endpoint = RouterOutputs["webhooks"]["list"]["endpoints"][number];

/** Error keys like "events.0" belong to the "events" field. */
function byField(entries: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    const field = k.split(".")[0] || "form";
    out[field] ??= v;
  }
  return out;
}

/** "All events" (including types added later), or the chosen event types. */
function EventChoice({
  events,
  onEvents,
  onToggle,
  error,
}: {
  events: string[];
  onEvents: (events: string[]) => void;
  onToggle: (type: string, on: boolean) => void;
  error?: string;
}) {
  const eventsId = useId();
  const all = events.includes(ALL_EVENTS);
  return (
    <fieldset aria-describedby={error ? `${eventsId}-error` : undefined}>
      <legend className="text-sm font-medium text-slate-700">Events to send</legend>
      <div className="mt-2 space-y-2">
        <label className="flex items-start gap-2 text-sm">
          <input
            type="checkbox"
            className="mt-0.5 h-4 w-4 rounded border-slate-300"
            checked={all}
            onChange={(e) => (e.target.checked ? onEvents([ALL_EVENTS]) : onEvents([]))}
          />
          <span>
            <span className="font-medium text-slate-900">All events</span>
            <span className="block text-xs text-slate-500">Including event types added later.</span>
          </span>
        </label>
        <div className="grid gap-1.5 border-l-2 border-slate-100 pl-3 sm:grid-cols-2">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                className="mt-0.5 h-4 w-4 rounded border-slate-300"
                checked={all || events.includes(type)}
                disabled={all}
                onChange={(e) => onToggle(type, e.target.checked)}
              />
              <span className={all ? "text-slate-500" : undefined}>
                <code className="font-mono text-xs">{type}</code>
                <span className="block text-xs text-slate-500">{WEBHOOK_EVENT_LABELS[type]}</span>
              </span>
            </label>
          ))}
        </div>
      </div>
      {error && (
        <p id={`${eventsId}-error`} className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </fieldset>
  );
}

type SaveResult = { ok: true } | { ok: false; errors?: Record<string, string>; message?: string };

/**
 * Adds the endpoint, or saves changes to `endpoint`: the form's values are checked here first,
 * then by the server; errors come back by field, or as one message for the whole form.
 */
function useSaveEndpoint(endpoint: Endpoint | null) {
  const trpc = useTRPC();
  const toast = useToast();
  const { mode } = useMode();
  const create = useMutation(trpc.webhooks.create.mutationOptions());
  const update = useMutation(trpc.webhooks.update.mutationOptions());
  const issuesByField = (issues: { path: PropertyKey[]; message: string }[]) => byField(issues.map((i) => [i.path.map(String).join("."), i.message]));
  async function save(values: { url: string; events: string[]; description: string }, onValid: () => void): Promise<SaveResult> {
    try {
      if (endpoint) {
        const parsed = webhookUpdateInput.safeParse({ mode, endpointId: endpoint.id, ...values });
        if (!parsed.success) return { ok: false, errors: issuesByField(parsed.error.issues) };
        onValid();
        await update.mutateAsync(parsed.data);
        toast("success", "Endpoint updated. Changes apply to events from now on.");
      } else {
        const parsed = webhookCreateInput.safeParse({ mode, ...values });
        if (!parsed.success) return { ok: false, errors: issuesByField(parsed.error.issues) };
        onValid();
        const created = await create.mutateAsync(parsed.data);
        toast("success", `Endpoint added. Send a test event to check that ${created.url} receives it.`);
      }
      return { ok: true };
    } catch (err) {
      const info = errorInfo(err);
      const fields = byField(Object.entries(info.fieldErrors));
      return Object.keys(fields).some((k) => k !== "form") ? { ok: false, errors: fields } : { ok: false, message: info.message };
    }
  }
  return { save, pending: create.isPending || update.isPending };
}

function EndpointForm({ endpoint, onDone }: { endpoint: Endpoint | null; onDone: () => unknown }) {
  const { mode } = useMode();
  const [url, setUrl] = useState(endpoint?.url ?? "");
  // A new endpoint gets every event: a merchant should not learn of a missing subscription from "Not sent".
  const [events, setEvents] = useState<string[]>(endpoint?.events ?? [ALL_EVENTS]);
  const [description, setDescription] = useState(endpoint?.description ?? "");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);

  // Editing a field clears its error.
  const clearError = (field: string) => {
    if (errors[field]) setErrors(({ [field]: _, ...rest }) => rest);
  };
  const toggle = (type: string, on: boolean) => {
    setEvents((cur) => (on ? [...cur.filter((e) => e !== type), type] : cur.filter((e) => e !== type)));
    clearError("events");
  };

  const { save, pending } = useSaveEndpoint(endpoint);
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setFormError(null);
    const r = await save({ url, events, description }, () => setErrors({}));
    if (r.ok) await onDone();
    else if (r.errors) setErrors(r.errors);
    else if (r.message) setFormError(r.message);
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      {formError && <Notice tone="error">{formError}</Notice>}
      <Field
        label="Endpoint URL"
        name="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder={mode === "live" ? "https://shop.example/webhooks/parakh" : "https://shop.example/webhooks/parakh or http://localhost:4000/hook"}
        value={url}
        onChange={(e) => {
          setUrl(e.target.value);
          clearError("url");
        }}
        error={errors.url}
        hint={mode === "live" ? "Live endpoints must use https and a public host." : "Sandbox may use http and localhost for local development."}
        autoFocus
      />
      <EventChoice events={events} onEvents={setEvents} onToggle={toggle} error={errors.events} />
      <Field
        label="Description (optional)"
        name="description"
        placeholder="e.g. Order service"
        maxLength={210}
        value={description}
        onChange={(e) => {
          setDescription(e.target.value);
          clearError("description");
        }}
        error={errors.description}
      />
      <DialogActions onCancel={() => void onDone()}>
        <Button type="submit" loading={pending}>
          {endpoint ? "Save changes" : "Add endpoint"}
        </Button>
      </DialogActions>
    </form>
  );
}

/** Add (endpoint = null) or edit an endpoint. */
export function EndpointDialog({ open, endpoint, onClose }: { open: boolean; endpoint: Endpoint | null; onClose: () => unknown }) {
  return (
    <Dialog open={open} onClose={() => void onClose()} title={endpoint ? "Edit endpoint" : "Add endpoint"}>
      <EndpointForm key={endpoint?.id ?? "new"} endpoint={endpoint} onDone={onClose} />
    </Dialog>
  );
}
