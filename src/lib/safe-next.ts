/**
 * Where to go after sign-in: a path on this site, never another origin. Browsers read `/\evil.example`
 * and `/<tab>/evil.example` as `//evil.example`, so the path is resolved the way the browser will
 * and kept only if it stays on the same origin.
 */
export function safeNextPath(value: string | null, fallback: string): string {
  if (!value || !value.startsWith("/")) return fallback;
  const base = "https://parakh.invalid";
  try {
    const url = new URL(value, base);
    if (url.origin !== base) return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}
