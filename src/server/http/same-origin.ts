/**
 * Whether a browser request comes from our own pages: the custom header (which forces a CORS
 * preflight cross-site) and, when the browser sends one, an Origin whose host is ours. `Origin: null`,
 * garbage and look-alike hosts are simply not ours.
 */
export function isSameOriginRequest(csrfHeader: string | null, origin: string | null, host: string | null): boolean {
  if (csrfHeader !== "1") return false;
  if (origin === null) return true;
  if (host === null) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}
