import net from "node:net";

/** `::ffff:a.b.c.d` is the same host as `a.b.c.d`. */
export function normalizeIp(ip: string): string {
  const trimmed = ip.trim();
  const lower = trimmed.toLowerCase();
  if (lower.startsWith("::ffff:") && net.isIPv4(trimmed.slice(7))) return trimmed.slice(7);
  return lower.includes(":") ? lower : trimmed;
}

export interface ParsedCidr {
  /** Canonical text: `a.b.c.d`, `a.b.c.d/n`, `v6`, `v6/n`. */
  text: string;
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** Parses an address or CIDR range; null when invalid. Host bits set in a range are refused. */
export function parseCidr(input: string): ParsedCidr | null {
  const [rawAddr, rawPrefix, ...rest] = input.trim().split("/");
  if (rest.length || !rawAddr) return null;
  const address = normalizeIp(rawAddr);
  const version = net.isIP(address);
  if (!version) return null;
  const family = version === 4 ? "ipv4" : "ipv6";
  const max = version === 4 ? 32 : 128;
  let prefix = max;
  if (rawPrefix !== undefined) {
    if (!/^\d{1,3}$/.test(rawPrefix)) return null;
    prefix = Number(rawPrefix);
    if (prefix > max) return null;
  }
  if (prefix < max) {
    // The network address must be the range's first address, so typos like 10.0.0.5/8 are caught.
    if (!isNetworkAddress(address, prefix, family)) return null;
  }
  const canonical = family === "ipv6" ? compressIpv6(expandIpv6(address)) : address;
  return { text: prefix === max ? canonical : `${canonical}/${prefix}`, address: canonical, prefix, family };
}

function isNetworkAddress(address: string, prefix: number, family: "ipv4" | "ipv6"): boolean {
  const bits = toBits(address, family);
  return bits.slice(prefix).every((b) => b === 0);
}

function toBits(address: string, family: "ipv4" | "ipv6"): number[] {
  const bytes: number[] = [];
  if (family === "ipv4") {
    for (const part of address.split(".")) bytes.push(Number(part));
  } else {
    const sa = new net.SocketAddress({ address, family: "ipv6" });
    const full = expandIpv6(sa.address);
    for (const group of full) {
      const v = parseInt(group, 16);
      bytes.push(v >> 8, v & 0xff);
    }
  }
  const bits: number[] = [];
  for (const b of bytes) for (let i = 7; i >= 0; i--) bits.push((b >> i) & 1);
  return bits;
}

/**
 * The address a limit counts: IPv4 as is, IPv6 by its /64 (one customer's block: counting single
 * IPv6 addresses would let one client rotate through billions of them).
 */
export function rateLimitKey(address: string): string {
  const ip = normalizeIp(address);
  if (!ip.includes(":")) return ip;
  try {
    return `${expandIpv6(ip).slice(0, 4).join(":")}::/64`;
  } catch {
    return ip;
  }
}

function expandIpv6(address: string): string[] {
  let addr = address;
  const v4 = addr.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split(".").map(Number) as [number, number, number, number];
    addr = addr.replace(v4[1]!, `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
  }
  const [head, tail] = addr.split("::");
  const h = head ? head.split(":") : [];
  const t = tail !== undefined ? (tail ? tail.split(":") : []) : [];
  const fill = tail !== undefined ? new Array(8 - h.length - t.length).fill("0") : [];
  return [...h, ...fill, ...t];
}

/** RFC 5952 text: lower case, no leading zeros, the longest run of zero groups as "::". */
function compressIpv6(groups: string[]): string {
  const parts = groups.map((g) => parseInt(g, 16).toString(16));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (parts[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && parts[j] === "0") j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart === -1) return parts.join(":");
  return `${parts.slice(0, bestStart).join(":")}::${parts.slice(bestStart + bestLen).join(":")}`;
}

/** A compiled set of addresses/ranges; `has(ip)` is a fast membership test. */
export class IpMatcher {
  private readonly list = new net.BlockList();
  readonly size: number;

  constructor(entries: string[]) {
    let n = 0;
    for (const e of entries) {
      const c = parseCidr(e);
      if (!c) continue;
      if (c.prefix === (c.family === "ipv4" ? 32 : 128)) this.list.addAddress(c.address, c.family);
      else this.list.addSubnet(c.address, c.prefix, c.family);
      n++;
    }
    this.size = n;
  }

  has(ip: string): boolean {
    if (this.size === 0) return false;
    const addr = normalizeIp(ip);
    const version = net.isIP(addr);
    if (!version) return false;
    return this.list.check(addr, version === 4 ? "ipv4" : "ipv6");
  }
}

/**
 * The client IP: the TCP peer, or, when the peer is a trusted proxy, the right-most
 * X-Forwarded-For hop that is not itself trusted.
 */
export function resolveClientIp(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: IpMatcher): string {
  const peerIp = normalizeIp(peer ?? "");
  if (!peerIp || trusted.size === 0 || !trusted.has(peerIp) || !forwardedFor) return peerIp;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  const hops = header
    .split(",")
    .map((h) => normalizeIp(h))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!net.isIP(hop)) return peerIp;
    if (!trusted.has(hop)) return hop;
  }
  return hops[0] && net.isIP(hops[0]) ? hops[0] : peerIp;
}
