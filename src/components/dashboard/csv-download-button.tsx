"use client";

import { useState } from "react";
import { Button, useToast } from "@/components/ui";

/** Downloads a CSV through fetch so a refusal can be explained instead of saved as a file. */
export function CsvDownloadButton({
  url,
  fallbackName,
  label = "Download CSV",
  action = "Download",
}: {
  url: string;
  fallbackName: string;
  label?: string;
  /** The word failures are reported with ("Download failed: …"). */
  action?: string;
}) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  async function run() {
    setBusy(true);
    try {
      const res = await fetch(url, { credentials: "same-origin" });
      if (!res.ok) {
        const text = await res.text();
        let message = text;
        try {
          message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
        } catch {
          // Plain-text answer.
        }
        toast("error", `${action} failed: ${message.slice(0, 200) || `HTTP ${res.status}`}`);
        return;
      }
      const blob = await res.blob();
      const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
      const href = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = href;
      a.download = name;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(href), 10_000);
      toast("success", `Downloaded ${name}.`);
    } catch {
      toast("error", `${action} failed: check your connection and try again.`);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Button variant="secondary" onClick={() => void run()} loading={busy}>
      {label}
    </Button>
  );
}
