import { describe, expect, it } from "vitest";
import { IpMatcher, normalizeIp, parseCidr, resolveClientIp } from "@/server/lib/ip";

describe("normalizeIp", () => {
  it("unwraps IPv4-mapped IPv6", () => {
    expect(normalizeIp("::ffff:1.2.3.4")).toBe("1.2.3.4");
    expect(normalizeIp("::FFFF:1.2.3.4")).toBe("1.2.3.4");
  });

  it("trims and lower-cases IPv6, leaves IPv4 as is", () => {
    expect(normalizeIp(" 10.0.0.1 ")).toBe("10.0.0.1");
    expect(normalizeIp("2001:DB8::1")).toBe("2001:db8::1");
  });

  it("does not unwrap ::ffff: followed by something that is not dotted IPv4", () => {
    expect(normalizeIp("::ffff:7f00:1")).toBe("::ffff:7f00:1");
  });
});

describe("parseCidr", () => {
  it.each<[string, { text: string; address: string; prefix: number; family: "ipv4" | "ipv6" }]>([
    ["1.2.3.4", { text: "1.2.3.4", address: "1.2.3.4", prefix: 32, family: "ipv4" }],
    ["1.2.3.4/32", { text: "1.2.3.4", address: "1.2.3.4", prefix: 32, family: "ipv4" }],
    ["10.0.0.0/8", { text: "10.0.0.0/8", address: "10.0.0.0", prefix: 8, family: "ipv4" }],
    ["192.168.1.0/24", { text: "192.168.1.0/24", address: "192.168.1.0", prefix: 24, family: "ipv4" }],
    ["0.0.0.0/0", { text: "0.0.0.0/0", address: "0.0.0.0", prefix: 0, family: "ipv4" }],
    [" 10.0.0.0/8 ", { text: "10.0.0.0/8", address: "10.0.0.0", prefix: 8, family: "ipv4" }],
    ["::ffff:1.2.3.4", { text: "1.2.3.4", address: "1.2.3.4", prefix: 32, family: "ipv4" }],
    ["2001:db8::1", { text: "2001:db8::1", address: "2001:db8::1", prefix: 128, family: "ipv6" }],
    ["2001:db8::1/128", { text: "2001:db8::1", address: "2001:db8::1", prefix: 128, family: "ipv6" }],
    ["2001:DB8::/32", { text: "2001:db8::/32", address: "2001:db8::", prefix: 32, family: "ipv6" }],
    ["2001:db8:0:1::/64", { text: "2001:db8:0:1::/64", address: "2001:db8:0:1::", prefix: 64, family: "ipv6" }],
    ["::/0", { text: "::/0", address: "::", prefix: 0, family: "ipv6" }],
  ])("parses %j", (input, expected) => {
    expect(parseCidr(input)).toEqual(expected);
  });

  it.each<[string, string]>([
    ["IPv4 host bits set", "10.0.0.5/8"],
    ["IPv4 host bits set (/24)", "192.168.1.1/24"],
    ["IPv6 host bits set", "2001:db8::1/64"],
    ["IPv6 host bits set mid-address", "2001:db8:0:0:1::/64"],
    ["IPv4 prefix over 32", "1.2.3.4/33"],
    ["IPv6 prefix over 128", "2001:db8::/129"],
    ["negative prefix", "1.2.3.4/-1"],
    ["non-numeric prefix", "1.2.3.4/x"],
    ["empty prefix", "1.2.3.4/"],
    ["no address", "/8"],
    ["two slashes", "1.2.3.4/8/1"],
    ["octet over 255", "256.1.1.1"],
    ["too few octets", "1.2.3"],
    ["hostname", "example.com"],
    ["empty", ""],
    ["garbage", "not an ip"],
  ])("refuses %s (%j)", (_why, input) => {
    expect(parseCidr(input)).toBeNull();
  });
});

describe("IpMatcher", () => {
  it("matches IPv4 ranges and single addresses", () => {
    const m = new IpMatcher(["10.0.0.0/8", "192.168.1.7"]);
    expect(m.size).toBe(2);
    expect(m.has("10.0.0.1")).toBe(true);
    expect(m.has("10.255.255.255")).toBe(true);
    expect(m.has("11.0.0.0")).toBe(false);
    expect(m.has("192.168.1.7")).toBe(true);
    expect(m.has("192.168.1.8")).toBe(false);
  });

  it("matches IPv6 ranges, case-insensitively", () => {
    const m = new IpMatcher(["2001:db8::/32"]);
    expect(m.has("2001:db8::1")).toBe(true);
    expect(m.has("2001:DB8:FFFF::1")).toBe(true);
    expect(m.has("2001:db9::1")).toBe(false);
  });

  it("treats ::ffff:a.b.c.d as a.b.c.d", () => {
    const m = new IpMatcher(["1.2.3.0/24"]);
    expect(m.has("::ffff:1.2.3.9")).toBe(true);
    expect(m.has("::ffff:1.2.4.9")).toBe(false);
  });

  it("an IPv4 entry does not match IPv6 addresses and vice versa", () => {
    expect(new IpMatcher(["0.0.0.0/0"]).has("2001:db8::1")).toBe(false);
    expect(new IpMatcher(["2001:db8::/32"]).has("1.2.3.4")).toBe(false);
  });

  it("skips invalid entries", () => {
    const m = new IpMatcher(["garbage", "10.0.0.5/8", "10.0.0.0/8"]);
    expect(m.size).toBe(1);
    expect(m.has("10.0.0.5")).toBe(true);
  });

  it("an empty matcher matches nothing", () => {
    const m = new IpMatcher([]);
    expect(m.size).toBe(0);
    for (const ip of ["1.2.3.4", "127.0.0.1", "::1", "::ffff:1.2.3.4"]) expect(m.has(ip)).toBe(false);
  });

  it("never matches a non-address", () => {
    const m = new IpMatcher(["0.0.0.0/0", "::/0"]);
    expect(m.has("")).toBe(false);
    expect(m.has("garbage")).toBe(false);
  });
});

describe("resolveClientIp", () => {
  const none = new IpMatcher([]);
  const proxies = new IpMatcher(["10.0.0.0/8"]);

  it("with no trusted proxies, is the peer even when X-Forwarded-For is sent", () => {
    expect(resolveClientIp("203.0.113.5", "1.1.1.1", none)).toBe("203.0.113.5");
    expect(resolveClientIp("10.0.0.1", "1.1.1.1", none)).toBe("10.0.0.1");
  });

  it("ignores X-Forwarded-For from an untrusted peer (spoofing changes nothing)", () => {
    expect(resolveClientIp("203.0.113.5", "1.1.1.1, 10.0.0.2", proxies)).toBe("203.0.113.5");
  });

  it("from a trusted peer, is the right-most untrusted hop", () => {
    expect(resolveClientIp("10.0.0.1", "198.51.100.9", proxies)).toBe("198.51.100.9");
    expect(resolveClientIp("10.0.0.1", "6.6.6.6, 198.51.100.9", proxies)).toBe("198.51.100.9");
  });

  it("skips a chain of trusted hops", () => {
    expect(resolveClientIp("10.0.0.1", "6.6.6.6, 198.51.100.9, 10.0.0.3, 10.0.0.2", proxies)).toBe("198.51.100.9");
  });

  it("accepts the header as an array of lines", () => {
    expect(resolveClientIp("10.0.0.1", ["6.6.6.6", "198.51.100.9, 10.0.0.2"], proxies)).toBe("198.51.100.9");
  });

  it("falls back to the peer when it meets a garbage hop", () => {
    expect(resolveClientIp("10.0.0.1", "not-an-ip", proxies)).toBe("10.0.0.1");
    expect(resolveClientIp("10.0.0.1", "1.1.1.1, garbage, 10.0.0.2", proxies)).toBe("10.0.0.1");
    expect(resolveClientIp("10.0.0.1", "1.1.1.1:443", proxies)).toBe("10.0.0.1");
  });

  it("is the peer when a trusted peer sends no or an empty header", () => {
    expect(resolveClientIp("10.0.0.1", undefined, proxies)).toBe("10.0.0.1");
    expect(resolveClientIp("10.0.0.1", "", proxies)).toBe("10.0.0.1");
  });

  it("normalises a ::ffff: peer and ::ffff: hops", () => {
    expect(resolveClientIp("::ffff:203.0.113.5", undefined, none)).toBe("203.0.113.5");
    expect(resolveClientIp("::ffff:10.0.0.1", "::ffff:198.51.100.9", proxies)).toBe("198.51.100.9");
  });

  it("works with IPv6 proxies and clients", () => {
    const v6 = new IpMatcher(["fd00::/8"]);
    expect(resolveClientIp("fd00::1", "2001:DB8::7, fd00::2", v6)).toBe("2001:db8::7");
  });

  it("is empty when there is no peer", () => {
    expect(resolveClientIp(undefined, "1.1.1.1", proxies)).toBe("");
  });
});

describe("IPv6 canonical text", () => {
  it.each([
    ["2001:0db8::/32", "2001:db8::/32"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"],
    ["::1", "::1"],
    ["fe80:0:0:0:0:0:0:0/10", "fe80::/10"],
  ])("%s → %s", (input, text) => {
    expect(parseCidr(input)?.text).toBe(text);
  });
});
