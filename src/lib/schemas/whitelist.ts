import { z } from "zod";

// Browser-safe schemas shared by the IP whitelist page and the whitelist router. The server's
// parseCidr (node:net) stays the authority; this check catches typos before a round trip.

function ipv4Bits(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bits: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith("0"))) return null;
    const n = Number(p);
    if (n > 255) return null;
    for (let i = 7; i >= 0; i--) bits.push((n >> i) & 1);
  }
  return bits;
}

function ipv6Bits(text: string): number[] | null {
  let addr = text.toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as the last two groups.
  const v4 = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  let tailBits: number[] = [];
  if (v4) {
    const b = ipv4Bits(v4[1]!);
    if (!b) return null;
    tailBits = b;
    addr = addr.slice(0, addr.length - v4[1]!.length);
    if (addr.endsWith(":") && !addr.endsWith("::")) addr = addr.slice(0, -1);
  }
  const halves = addr.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  const wanted = 8 - tailBits.length / 16;
  const given = head.length + tail.length;
  if (halves.length === 2 ? given >= wanted : given !== wanted) return null;
  const groups = [...head, ...new Array(wanted - given).fill("0"), ...tail];
  const bits: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    for (let i = 15; i >= 0; i--) bits.push((n >> i) & 1);
  }
  return [...bits, ...tailBits];
}

/** Why `input` is not an address or CIDR range, or null when it is one. */
export function ipOrCidrProblem(input: string): string | null {
  const [addr, prefix, ...rest] = input.trim().split("/");
  if (!addr || rest.length) return "Enter an IPv4 or IPv6 address, or a CIDR range like 203.0.113.0/24";
  const bits = addr.includes(":") ? ipv6Bits(addr) : ipv4Bits(addr);
  if (!bits) return "Enter an IPv4 or IPv6 address, or a CIDR range like 203.0.113.0/24";
  if (prefix === undefined) return null;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits.length) return `The range size after “/” must be 0 to ${bits.length}`;
  if (bits.slice(Number(prefix)).some((b) => b === 1)) return "Use the range’s first address (host bits must be zero), e.g. 10.0.0.0/8";
  return null;
}

/**
 * Ranges wider than these get a warning and need an explicit confirmation: more than 65,536 addresses
 * (an IPv4 /16), or more than 65,536 LANs (an IPv6 /48, one organisation's site). Wider ones take in
 * other people's networks (a cloud region, an ISP), so the list no longer keeps strangers out.
 */
export const WIDE_IPV4_PREFIX = 16;
export const WIDE_IPV6_PREFIX = 48;

/** The first 96 bits of an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
const MAPPED_V4_PREFIX = [...new Array<number>(80).fill(0), ...new Array<number>(16).fill(1)];

/** Why a valid address or range is dangerously wide (see WIDE_IPV4_PREFIX), or null when it is not. */
export function wideRangeWarning(input: string): string | null {
  const text = input.trim();
  const [addr, rawPrefix] = text.split("/");
  if (!addr || rawPrefix === undefined || ipOrCidrProblem(text)) return null;
  const v6 = addr.includes(":");
  const bits = v6 ? ipv6Bits(addr)! : ipv4Bits(addr)!;
  let prefix = Number(rawPrefix);
  let ipv4 = !v6;
  // ::ffff:0.0.0.0/96 is every IPv4 address written as IPv6.
  if (v6 && prefix >= 96 && MAPPED_V4_PREFIX.every((b, i) => bits[i] === b)) {
    prefix -= 96;
    ipv4 = true;
  }
  if (prefix === 0) return `${text} is every ${ipv4 ? "IPv4" : "IPv6"} address on the internet: with it the whitelist keeps nobody out.`;
  if (ipv4 && prefix < WIDE_IPV4_PREFIX) {
    const count = (2 ** (32 - prefix)).toLocaleString("en-IN");
    return `${text} covers ${count} addresses, far more than your own servers (a /${WIDE_IPV4_PREFIX} is 65,536): other people's networks would get through.`;
  }
  if (!ipv4 && prefix < WIDE_IPV6_PREFIX) {
    return `${text} is wider than a /${WIDE_IPV6_PREFIX} (one organisation's site): other people's networks would get through.`;
  }
  return null;
}

export const ipOrCidrSchema = z
  .string()
  .trim()
  .min(1, "Enter an IP address or CIDR range")
  .max(64, "That is too long for an IP address or range")
  .superRefine((v, ctx) => {
    const problem = v.length > 0 && v.length <= 64 ? ipOrCidrProblem(v) : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const whitelistLabelSchema = z.string().trim().max(100, "Label must be at most 100 characters");

export const addWhitelistInput = z.object({
  ip: ipOrCidrSchema,
  label: whitelistLabelSchema,
  /** The merchant saw wideRangeWarning and added the range anyway. */
  confirmWide: z.boolean().optional(),
});
export const removeWhitelistInput = z.object({ id: z.string().min(1).max(64) });
export const setEnforcementInput = z.object({ enforceOnAllApis: z.boolean() });

/** Most entries one merchant may hold; every entry is checked on each API call. */
export const WHITELIST_MAX_ENTRIES = 100;
