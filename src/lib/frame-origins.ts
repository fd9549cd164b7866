export const MAX_FRAME_ORIGINS = 10;

/**
 * The origins a merchant allows to embed its hosted checkout: https origins (scheme, host, optional
 * port; no path), or http://localhost for testing. Browser-safe: the settings form and the server
 * read the list the same way.
 */
export function parseFrameOrigins(input: string): { origins: string[] } | { error: string } {
  const entries = input
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length > MAX_FRAME_ORIGINS) return { error: `List at most ${MAX_FRAME_ORIGINS} origins.` };
  const origins: string[] = [];
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return { error: `${entry.slice(0, 80)} is not an origin like https://shop.example.com.` };
    }
    const local = url.protocol === "http:" && (url.hostname === "localhost" || url.hostname === "127.0.0.1");
    const bare =
      url.pathname === "/" &&
      !url.search &&
      !url.hash &&
      !url.username &&
      !url.password &&
      !entry
        .replace(/\/$/, "")
        .slice(url.protocol.length + 2)
        .includes("/");
    if ((url.protocol !== "https:" && !local) || !bare || url.hostname.includes("*")) {
      return { error: `${entry.slice(0, 80)} must be an https origin (scheme and host, no path), e.g. https://shop.example.com.` };
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return { origins };
}
