import type { Metadata } from "next";
import Link from "next/link";
import { ApiReference } from "./api-reference";
import "./docs.css";

export const metadata: Metadata = { title: "API reference" };

export default function DocsPage() {
  return (
    <main>
      {/* Swagger UI's own stylesheet, served from the package as is (docs.css adjusts it for phones). */}
      {/* eslint-disable-next-line @next/next/no-css-tags */}
      <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
      <div className="border-b border-slate-200 bg-white px-6 py-4">
        <div className="mx-auto flex max-w-6xl items-center justify-between">
          <Link href="/" className="text-lg font-semibold tracking-tight">
            Parakh
          </Link>
          <a href="/api/openapi.json" className="text-sm text-brand-600 hover:underline">
            openapi.json
          </a>
        </div>
      </div>
      <div className="mx-auto max-w-6xl bg-white">
        <ApiReference specUrl="/api/openapi.json" />
      </div>
    </main>
  );
}
