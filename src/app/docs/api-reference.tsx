"use client";

import Script from "next/script";
import { useCallback, useEffect, useState } from "react";

declare global {
  interface Window {
    SwaggerUIBundle?: ((opts: Record<string, unknown>) => unknown) & { presets: { apis: unknown } };
  }
}

/** Interactive reference rendered from /api/openapi.json (generated from the zod schemas). */
export function ApiReference({ specUrl }: { specUrl: string }) {
  const [loaded, setLoaded] = useState(false);
  const [failed, setFailed] = useState(false);

  const mount = useCallback(() => {
    if (!window.SwaggerUIBundle) return;
    window.SwaggerUIBundle({
      url: specUrl,
      dom_id: "#api-reference",
      deepLinking: true,
      tryItOutEnabled: false,
      persistAuthorization: false,
      presets: [window.SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      defaultModelsExpandDepth: 0,
    });
    setLoaded(true);
  }, [specUrl]);

  useEffect(() => {
    if (window.SwaggerUIBundle) mount();
  }, [mount]);

  return (
    <>
      <Script src="/docs/assets/swagger-ui-bundle.js" strategy="afterInteractive" onLoad={mount} onError={() => setFailed(true)} />
      {!loaded && !failed && <p className="p-6 text-sm text-slate-500">Loading the API reference…</p>}
      {failed && (
        <p className="p-6 text-sm text-red-700">
          The reference viewer could not load. The document itself is at{" "}
          <a className="underline" href={specUrl}>
            {specUrl}
          </a>
          .
        </p>
      )}
      <div id="api-reference" />
    </>
  );
}
