"use client";

import Link from "next/link";
import { Card, CopyButton } from "@/components/ui";
import { VERIFY_SNIPPET } from "./verify-snippet";

export function VerifyHelp() {
  return (
    <Card title="Verify signatures" description="Check every delivery before you trust it." actions={<CopyButton value={VERIFY_SNIPPET} label="Copy code" />}>
      <div className="space-y-3 text-sm text-slate-600">
        <ul className="list-disc space-y-1 pl-5">
          <li>
            Each delivery is a <code className="font-mono text-xs">POST</code> with a JSON body{" "}
            <code className="font-mono text-xs">{"{id, type, created_at, mode, data}"}</code> and the headers{" "}
            <code className="font-mono text-xs">X-Webhook-Id</code>, <code className="font-mono text-xs">X-Webhook-Event</code>,{" "}
            <code className="font-mono text-xs">X-Webhook-Timestamp</code> and <code className="font-mono text-xs">X-Webhook-Signature</code>.
          </li>
          <li>
            The signature is <code className="font-mono text-xs">HMAC-SHA256(signing secret, t + &quot;.&quot; + raw body)</code> in hex. Your signing secret is
            on the{" "}
            <Link href="/dashboard/keys" className="text-brand-600 hover:underline">
              API keys
            </Link>{" "}
            page (one per mode).
          </li>
          <li>
            Deliveries can arrive more than once and out of order:{" "}
            <strong className="font-medium text-slate-800">
              dedupe on the event’s <code className="font-mono text-xs">id</code>
            </strong>
            . A resend carries the same id.
          </li>
          <li>
            Answer with a 2xx within 5 seconds, body included (an empty body is best: one over 64 KiB counts as a failure, and so do redirects). Failed
            deliveries are retried after 1 m, 5 m, 10 m, 30 m, 1 h, 2 h, 4 h, 6 h and 6 h.
          </li>
          <li>
            Test events have the type <code className="font-mono text-xs">webhook.test</code> and <code className="font-mono text-xs">data.test: true</code>;
            their sample payment is not real.
          </li>
        </ul>
        <pre className="overflow-x-auto rounded-md bg-slate-900 px-4 py-3 font-mono text-xs leading-relaxed text-slate-100">
          <code>{VERIFY_SNIPPET}</code>
        </pre>
      </div>
    </Card>
  );
}
