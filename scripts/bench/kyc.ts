import fs from "node:fs";
import path from "node:path";
import type autocannon from "autocannon";
import { maskAadhaar } from "@/lib/aadhaar";
import { createPrismaClient, type Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { aadhaarLookupHash, OTP_TTL_MS } from "@/server/services/kyc/aadhaar-otp";

export type LedgerCheck = Awaited<ReturnType<typeof ledgerCheck>>;

const BENCH_AADHAAR = "234567890009";

/** The ledger after a charged run: its sum must equal the balance, with no hold left open. */
async function ledgerCheck(client: Db, merchantId: string) {
  // autocannon stops with calls still in flight; let them settle before reading.
  await new Promise((r) => setTimeout(r, 1000));
  const wallet = await client.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId, mode: "sandbox" } } });
  const sum = await client.ledgerEntry.aggregate({ where: { walletId: wallet.id }, _sum: { amountPaise: true } });
  const openHolds = await client.walletHold.count({ where: { walletId: wallet.id, state: "HELD" } });
  const charged = await client.kycTransaction.count({ where: { merchantId } });
  return {
    balancePaise: wallet.balancePaise,
    ledgerSumPaise: sum._sum.amountPaise ?? 0,
    ledgerEqualsBalance: sum._sum.amountPaise === wallet.balancePaise,
    openHolds,
    charged,
  };
}

/**
 * PAN KYC on one merchant's one hot wallet row, and Aadhaar verify-otp on OTP requests made ahead
 * (each OTP is single use, and sending is limited per number, so the requests are written directly).
 */
export async function benchKyc<R>(
  load: (name: string, opts: autocannon.Options) => Promise<R>,
  db: string,
  seconds: number,
  base: string,
  databaseUrl: string,
  dataDir: string,
  creds: { merchantId: string; sandbox: { publicKey: string; secretKey: string } },
  panOnly = false,
) {
  const client = createPrismaClient(databaseUrl);
  const kycHeaders = { "content-type": "application/json", "x-api-key": creds.sandbox.publicKey, "x-api-secret": creds.sandbox.secretKey };
  const pan = await load(`POST /api/kyc/pan/verify (${db})`, {
    url: `${base}/api/kyc/pan/verify`,
    method: "POST",
    headers: kycHeaders,
    body: JSON.stringify({ merchantId: creds.merchantId, pan: "ABCPK1234F", name: "Arjun Kapoor", dob: "1990-01-01" }),
  });
  const afterPan = await ledgerCheck(client, creds.merchantId);
  if (panOnly) {
    await client.$disconnect();
    return [{ ...pan, ledger: afterPan }];
  }

  const secrets = JSON.parse(fs.readFileSync(path.join(dataDir, "secrets.json"), "utf8")) as { hashKey: string };
  const aadhaarHash = aadhaarLookupHash(secrets.hashKey, BENCH_AADHAAR);
  const ids: string[] = [];
  const needed = 4000 * (seconds + 2);
  for (let done = 0; done < needed; done += 2000) {
    const rows = Array.from({ length: 2000 }, () => {
      const id = newId("kyc_req");
      ids.push(id);
      return {
        id,
        merchantId: creds.merchantId,
        mode: "sandbox",
        aadhaarHash,
        maskedAadhaar: maskAadhaar(BENCH_AADHAAR),
        mobileLast4: "4321",
        sourceReference: "bench",
        expiresAt: new Date(Date.now() + OTP_TTL_MS),
      };
    });
    await client.kycOtpRequest.createMany({ data: rows });
  }
  let next = 0;
  const otp = await load(`POST /api/kyc/aadhaar/verify-otp (${db})`, {
    url: `${base}/api/kyc/aadhaar/verify-otp`,
    method: "POST",
    headers: kycHeaders,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ merchantId: creds.merchantId, aadhaarNumber: BENCH_AADHAAR, otp: "123456", requestId: ids[next++ % ids.length] }),
        }),
      },
    ],
  });
  const afterOtp = await ledgerCheck(client, creds.merchantId);
  await client.$disconnect();
  return [
    { ...pan, ledger: afterPan },
    { ...otp, ledger: afterOtp },
  ];
}
