// Merchant branding for the hosted checkout, safe to use on the server and in the browser.

/** Parakh's brand-600, used when a merchant has not set a colour (or set one we can't read). */
export const DEFAULT_BRAND_COLOR = "#1f57d6";

function parseHex(color: string): [number, number, number] | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return null;
  const hex = m[1]!.length === 3 ? m[1]!.replace(/./g, (c) => c + c) : m[1]!;
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export interface BrandTheme {
  /** Header background. */
  background: string;
  /** Header text colour: white on dark brands, near-black on light ones. */
  foreground: string;
  /**
   * CSS variables that re-theme the `brand-*` utilities (primary buttons, focus rings) inside the
   * checkout, only when white text stays readable on the merchant's colour (WCAG AA, 4.5:1).
   */
  cssVars: Record<string, string>;
}

export function brandTheme(color: string | null | undefined): BrandTheme {
  const rgb = (color && parseHex(color)) || parseHex(DEFAULT_BRAND_COLOR)!;
  const background = `#${rgb.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
  const lum = luminance(rgb);
  const whiteContrast = 1.05 / (lum + 0.05);
  const darkText = whiteContrast < 4.5;
  const cssVars: Record<string, string> = darkText
    ? {}
    : {
        "--color-brand-600": background,
        "--color-brand-700": `color-mix(in srgb, ${background} 82%, black)`,
        "--color-brand-500": `color-mix(in srgb, ${background} 80%, white)`,
        "--color-brand-100": `color-mix(in srgb, ${background} 18%, white)`,
        "--color-brand-50": `color-mix(in srgb, ${background} 7%, white)`,
      };
  return { background, foreground: darkText ? "#0f172a" : "#ffffff", cssVars };
}

/** The first letter of the merchant's name, for the logo placeholder. */
export function merchantInitial(name: string): string {
  return (name.trim().match(/[\p{L}\p{N}]/u)?.[0] ?? "?").toUpperCase();
}

/** Only plain http(s) logo addresses are shown; anything else falls back to the initial. */
export function safeLogoUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : null;
  } catch {
    return null;
  }
}
