import { describe, expect, it } from "vitest";
import { demoBanner } from "@/server/http/demo-banner";

const creds = {
  merchantId: "mer_demo",
  email: "demo@parakh.local",
  password: "pw-1",
  sandbox: { publicKey: "pk_test_1", secretKey: "sk_test_2", signingSecret: "whsec_3" },
};

describe("the demo banner", () => {
  it("lines every value up in one column in development, the longest label included", () => {
    const lines = demoBanner(creds, "http://localhost:3000", true, { pan: "ABCPK1234F", name: "A" }).split("\n");
    expect(lines.slice(2, 10)).toEqual([
      "    Dashboard       http://localhost:3000/login",
      "    Email           demo@parakh.local",
      "    Password        pw-1",
      "    Merchant id     mer_demo",
      "    Public key      pk_test_1",
      "    Secret key      sk_test_2",
      "    Signing secret  whsec_3",
      "    API reference   http://localhost:3000/docs",
    ]);
  });

  it("carries no secret in production", () => {
    const text = demoBanner(creds, "https://pay.example", false, { pan: "ABCPK1234F", name: "A" });
    expect(text).not.toMatch(/pw-1|sk_test_2|whsec_3/);
    expect(text).toContain("    Merchant id                mer_demo");
  });
});
