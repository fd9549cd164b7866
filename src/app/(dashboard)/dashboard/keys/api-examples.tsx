"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { Card, CopyButton } from "@/components/ui";
import type { Mode } from "@/components/dashboard/mode";
import { curlSnippets, SECRET_KEY_PLACEHOLDER, type ApiBaseUrls } from "@/lib/api-snippets";

/** One copyable curl command per API family, with the headers it needs. */
function ExampleCalls({ apiBaseUrls, merchantId, publicKey }: { apiBaseUrls: ApiBaseUrls; merchantId: string; publicKey: string }) {
  return (
    <ul className="mt-4 space-y-5">
      {curlSnippets(apiBaseUrls, { merchantId, publicKey }).map((s) => (
        <li key={s.family}>
          <div className="flex flex-wrap items-start justify-between gap-2">
            <div className="min-w-0">
              <h3 className="text-sm font-medium text-slate-900">{s.title}</h3>
              <p className="text-xs text-slate-500">{s.auth}</p>
            </div>
            <CopyButton value={s.command} label={`Copy ${s.name} command`} />
          </div>
          <pre className="mt-2 overflow-x-auto rounded-md bg-slate-900 px-4 py-3 font-mono text-xs leading-relaxed text-slate-100">
            <code>{s.command}</code>
          </pre>
          {s.family === "payments" && (
            <p className="mt-1 text-xs text-slate-500">
              Payments are accepted only from addresses on your{" "}
              <Link href="/dashboard/whitelist" className="text-brand-600 hover:underline">
                IP whitelist
              </Link>
              .
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * The merchant id and one copyable call per API family, with that family's headers. The secret key
 * is a shell variable: after creation we only hold its hash.
 */
export function ApiExamples({
  mode,
  merchantId,
  apiBaseUrls,
  keys,
}: {
  mode: Mode;
  merchantId: string;
  apiBaseUrls: ApiBaseUrls;
  /** Working keys, newest first. */
  keys: { id: string; label: string; publicKey: string }[];
}) {
  const selectId = useId();
  const [chosenId, setChosenId] = useState<string | null>(null);
  const key = keys.find((k) => k.id === chosenId) ?? keys[0];
  const prefix = mode === "live" ? "sk_live_" : "sk_test_";

  return (
    <Card title="Call the API" description="Your merchant ID and a ready-to-run call for each API, with the headers it needs.">
      <dl className="text-sm">
        <dt className="text-xs text-slate-500">Merchant ID</dt>
        <dd className="mt-0.5 flex min-h-7 items-center gap-2">
          <code className="min-w-0 break-all font-mono text-[13px] text-slate-800">{merchantId}</code>
          <CopyButton value={merchantId} label="Copy merchant ID" />
        </dd>
      </dl>

      {!key ? (
        <p className="mt-4 text-sm text-slate-500">Create a key to see example calls with it.</p>
      ) : (
        <>
          <div className="mt-4 flex flex-wrap items-end justify-between gap-3">
            <p className="min-w-0 text-sm text-slate-600">
              The secret key is shown only when a key is created. Set it in your shell first:
              <code className="mt-1 block font-mono text-xs text-slate-800">
                export {SECRET_KEY_PLACEHOLDER.slice(1)}={prefix}…
              </code>
            </p>
            {keys.length > 1 && (
              <div>
                <label htmlFor={selectId} className="block text-xs text-slate-500">
                  Examples use
                </label>
                <select
                  id={selectId}
                  value={key.id}
                  onChange={(e) => setChosenId(e.target.value)}
                  className="mt-0.5 max-w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
                >
                  {keys.map((k) => (
                    <option key={k.id} value={k.id}>
                      {k.label}
                    </option>
                  ))}
                </select>
              </div>
            )}
          </div>
          <ExampleCalls apiBaseUrls={apiBaseUrls} merchantId={merchantId} publicKey={key.publicKey} />
          {mode === "sandbox" && <p className="mt-4 text-xs text-slate-500">In sandbox every well-formed PAN answers with test data; ABCPK1234F is VALID.</p>}
        </>
      )}
    </Card>
  );
}
