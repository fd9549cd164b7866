import type { Metadata } from "next";
import { ApiReference } from "./api-reference";
import "./docs.css";

export const metadata: Metadata = { title: "API reference" };

export default function DocsPage() {
  return (
    <main>
      <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
      <div className="border-b border-slate-200 bg-white px-6 py-4">
        <div className="mx-auto flex max-w-6xl items-center justify-between">
          <a href="/" className="text-lg font-semibold tracking-tight">Parakh</a>
          <a href="/api/openapi.json" className="text-sm text-brand-600 hover:underline">openapi.json</a>
        </div>
      </div>
      <div className="mx-auto max-w-6xl bg-white">
        <ApiReference specUrl="/api/openapi.json" />
      </div>
    </main>
  );
}
