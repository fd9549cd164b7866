import dns from "node:dns/promises";
import net from "node:net";
import { IpMatcher, normalizeIp } from "@/server/lib/ip";

/** Addresses a webhook may never reach in live mode: private, loopback, link-local, metadata, reserved. */
const BLOCKED = new IpMatcher([
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/128",
  "::1/128",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
  "64:ff9b::/96",
  "2001:db8::/32",
]);
const LOOPBACK = new IpMatcher(["127.0.0.0/8", "::1/128"]);

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

export class UnsafeWebhookTarget extends Error {}

/**
 * Resolves the URL's host and checks every address it resolves to; the delivery then connects to
 * the checked address itself, so a DNS answer that changes between check and connect (rebinding)
 * cannot redirect it. Sandbox may be allowed loopback (local development and tests).
 */
export async function resolveWebhookTarget(url: URL, opts: { allowLoopback: boolean }): Promise<ResolvedTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) as 4 | 6 }] : ((await dns.lookup(host, { all: true })) as ResolvedTarget[]);
  if (addresses.length === 0) throw new UnsafeWebhookTarget(`${host} does not resolve`);
  for (const a of addresses) {
    const ip = normalizeIp(a.address);
    if (opts.allowLoopback && LOOPBACK.has(ip)) continue;
    if (BLOCKED.has(ip)) throw new UnsafeWebhookTarget(`${host} resolves to a private or reserved address`);
  }
  const first = addresses[0]!;
  return { address: normalizeIp(first.address), family: first.family };
}

/** Checks done when an endpoint is registered: scheme and, in live mode, https and a public host. */
export function webhookUrlProblem(raw: string, mode: "sandbox" | "live"): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Enter an absolute URL, e.g. https://shop.example/webhooks/parakh";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "Use an http or https URL";
  if (mode === "live" && url.protocol !== "https:") return "Live webhooks must use https";
  if (url.username || url.password) return "Credentials in the URL are not allowed";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (mode === "live" && (host === "localhost" || host.endsWith(".localhost") || (net.isIP(host) && BLOCKED.has(host)))) {
    return "Live webhooks must reach a public address";
  }
  return null;
}
