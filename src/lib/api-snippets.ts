// Ready-to-run curl lines for a merchant's keys, one per API family, each with that family's
// headers. Browser-safe: the dashboard builds them from what the server tells it.

/** Where each API family is served (config's base URLs; all default to the app's origin). */
export interface ApiBaseUrls {
  /** Identity and employment, paths under /v1. */
  v1: string;
  /** Payments, paths under /api. */
  payments: string;
  /** KYC, paths under /api/kyc. */
  kyc: string;
}

export interface SnippetKey {
  merchantId: string;
  publicKey: string;
  /** Only right after the key is created; we never have it later. */
  secretKey?: string;
}

/** Stands in for the secret key after creation: the shell fills it from the merchant's environment. */
export const SECRET_KEY_PLACEHOLDER = "$PARAKH_SECRET_KEY";

/** A PAN every sandbox answers VALID, with the name the sandbox holds for it. */
export const SAMPLE_PAN = { pan: "ABCPK1234F", name: "Arjun Kapoor" } as const;

export type ApiFamily = "v1" | "payments" | "kyc";

export interface CurlSnippet {
  family: ApiFamily;
  /** "/v1", "payments", "KYC": for button labels. */
  name: string;
  title: string;
  /** Which headers carry which credential. */
  auth: string;
  command: string;
}

/** Headers in double quotes so `$PARAKH_SECRET_KEY` expands; keys and ids are [A-Za-z0-9_] only. */
function curl(url: string, headers: string[], body: Record<string, string>): string {
  return [`curl ${url} \\`, ...headers.map((h) => `  -H "${h}" \\`), `  -H "Content-Type: application/json" \\`, `  -d '${JSON.stringify(body)}'`].join("\n");
}

export function panVerifyCurl(bases: ApiBaseUrls, key: SnippetKey): string {
  const secret = key.secretKey ?? SECRET_KEY_PLACEHOLDER;
  return curl(`${bases.v1}/v1/identity/pan/verify`, [`Authorization: Bearer ${secret}`], { ...SAMPLE_PAN });
}

export function checkoutCurl(bases: ApiBaseUrls, key: SnippetKey): string {
  const secret = key.secretKey ?? SECRET_KEY_PLACEHOLDER;
  return curl(`${bases.payments}/api/checkout`, [`x-merchant-id: ${key.merchantId}`, `x-api-key: ${key.publicKey}`, `x-secret-key: ${secret}`], {
    orderId: "ORDER_10023",
    amount: "499",
  });
}

export function kycPanCurl(bases: ApiBaseUrls, key: SnippetKey): string {
  const secret = key.secretKey ?? SECRET_KEY_PLACEHOLDER;
  return curl(`${bases.kyc}/api/kyc/pan/verify`, [`x-api-key: ${key.publicKey}`, `x-api-secret: ${secret}`], { merchantId: key.merchantId, ...SAMPLE_PAN });
}

/** One example call per API family, in the order a merchant usually meets them. */
export function curlSnippets(bases: ApiBaseUrls, key: SnippetKey): CurlSnippet[] {
  return [
    {
      family: "v1",
      name: "/v1",
      title: "Verification API (/v1), e.g. PAN verify",
      auth: "Authorization: Bearer with the secret key",
      command: panVerifyCurl(bases, key),
    },
    {
      family: "payments",
      name: "payments",
      title: "Payments API, e.g. create a checkout",
      auth: "x-merchant-id, x-api-key (public key) and x-secret-key (secret key)",
      command: checkoutCurl(bases, key),
    },
    {
      family: "kyc",
      name: "KYC",
      title: "KYC API, e.g. PAN KYC",
      auth: "x-api-key (public key), x-api-secret (secret key) and merchantId in the body",
      command: kycPanCurl(bases, key),
    },
  ];
}
