import { describe, expect, it } from "vitest";
import { curlSnippets, SAMPLE_PAN, SECRET_KEY_PLACEHOLDER, type ApiBaseUrls } from "@/lib/api-snippets";
import { sandboxPanProvider } from "@/server/providers/sandbox/pan";
import { nameMatchResult, nameMatchScore } from "@/server/services/identity/name-match";

const bases: ApiBaseUrls = { v1: "https://verify.example.in", payments: "https://pay.example.in", kyc: "https://kyc.example.in" };
const key = { merchantId: "mer_Abc123", publicKey: "pk_test_Pub456" };

/** The -H values of a curl line, in order. */
const headers = (command: string) => [...command.matchAll(/-H "([^"]*)"/g)].map((m) => m[1]);
const body = (command: string) => JSON.parse(/-d '([^']*)'/.exec(command)![1]!);

describe("curl snippets for the API keys page", () => {
  it("gives each API family its own base URL, path and headers, with the secret as a shell variable", () => {
    const [v1, payments, kyc] = curlSnippets(bases, key);
    expect(v1!.command).toMatch(/^curl https:\/\/verify\.example\.in\/v1\/identity\/pan\/verify \\\n/);
    expect(headers(v1!.command)).toEqual([`Authorization: Bearer ${SECRET_KEY_PLACEHOLDER}`, "Content-Type: application/json"]);
    expect(body(v1!.command)).toEqual({ pan: "ABCPK1234F", name: "Arjun Kapoor" });

    expect(payments!.command).toMatch(/^curl https:\/\/pay\.example\.in\/api\/checkout \\\n/);
    expect(headers(payments!.command)).toEqual([
      "x-merchant-id: mer_Abc123",
      "x-api-key: pk_test_Pub456",
      `x-secret-key: ${SECRET_KEY_PLACEHOLDER}`,
      "Content-Type: application/json",
    ]);
    expect(body(payments!.command)).toMatchObject({ orderId: expect.stringMatching(/^ORDER_/), amount: "499" });

    expect(kyc!.command).toMatch(/^curl https:\/\/kyc\.example\.in\/api\/kyc\/pan\/verify \\\n/);
    expect(headers(kyc!.command)).toEqual(["x-api-key: pk_test_Pub456", `x-api-secret: ${SECRET_KEY_PLACEHOLDER}`, "Content-Type: application/json"]);
    expect(body(kyc!.command)).toMatchObject({ merchantId: "mer_Abc123", pan: "ABCPK1234F" });
  });

  it("puts the real secret in every line only when it is given (right after creation)", () => {
    const secret = "sk_test_Secret789";
    for (const s of curlSnippets(bases, { ...key, secretKey: secret })) {
      expect(s.command).toContain(secret);
      expect(s.command).not.toContain("$PARAKH");
    }
    for (const s of curlSnippets(bases, key)) expect(s.command).not.toContain("sk_test_");
  });

  it("uses a sample PAN the sandbox answers VALID with a matching name", async () => {
    const r = await sandboxPanProvider.lookup(SAMPLE_PAN.pan);
    expect(r.status).toBe("VALID");
    expect(nameMatchResult(nameMatchScore(SAMPLE_PAN.name, r.name!))).toBe("MATCH");
  });
});
