import type { DemoCredentials } from "@/server/services/merchants/demo";

/** Rows of `label  value`, the values lined up one column past the longest label. */
function table(rows: [label: string, value: string][]): string[] {
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, value]) => `    ${label.padEnd(width)}${value}`);
}

/**
 * The demo merchant's banner. In development it carries the password and sandbox keys so the first
 * call is one copy away; in production it only says where they are kept, so logs never hold secrets.
 */
export function demoBanner(creds: DemoCredentials, appUrl: string, withSecrets: boolean, example: { pan: string; name: string }): string {
  const file = "data folder, demo-credentials.json (mode 0600)";
  const lines = withSecrets
    ? [
        "",
        "  Parakh is running. Demo merchant (sandbox):",
        ...table([
          ["Dashboard", `${appUrl}/login`],
          ["Email", creds.email],
          ["Password", creds.password],
          ["Merchant id", creds.merchantId],
          ["Public key", creds.sandbox.publicKey],
          ["Secret key", creds.sandbox.secretKey],
          ["Signing secret", creds.sandbox.signingSecret],
          ["API reference", `${appUrl}/docs`],
        ]),
        "",
        `  Try: curl -s ${appUrl}/v1/identity/pan/verify -H 'Authorization: Bearer ${creds.sandbox.secretKey}' \\`,
        `         -H 'Content-Type: application/json' -d '${JSON.stringify(example)}'`,
        "",
      ]
    : [
        "",
        "  Parakh is running with a demo merchant (SEED_DEMO=true):",
        ...table([
          ["Dashboard", `${appUrl}/login`],
          ["Email", creds.email],
          ["Merchant id", creds.merchantId],
          ["Password and sandbox keys", file],
        ]),
        "",
      ];
  return lines.join("\n") + "\n";
}
