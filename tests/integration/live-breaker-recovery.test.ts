import { describe, it } from "vitest";
import { startFakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request } from "../helpers/http";
import { approveLiveViaCli, cli, createMerchantViaCli, attestConsent } from "../helpers/server";
import { DB_TARGETS, startFor } from "../helpers/targets";
import { createPrismaClient } from "@/server/db/client";

// An open circuit lets one trial call through after its 30 s pause (contract C2): a trial that
// succeeds closes it, one that fails opens it again. The pause is the contract's, not shortened for
// tests, so both databases wait it out side by side, in a file of their own.
const CLIENT_ID = "CF_TEST_CLIENT_5150";
const CLIENT_SECRET = "cfsk_ma_test_breaker_recovery_9d8c7b";
const OPEN_MS = 30_000;

describe("an open upstream breaker after its pause", () => {
  it.concurrent.for(DB_TARGETS)(
    "closes after a trial call that succeeds and opens again after one that fails, on %s",
    { timeout: 120_000 },
    async (target, { expect }) => {
      const vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
      const env = await startFor(target, {
        LIVE_VERIFICATION_PROVIDER: "cashfree",
        CASHFREE_VERIFICATION_BASE_URL: vendor.url,
        CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID,
        CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET,
        UPSTREAM_TIMEOUT_MS: "1500",
      });
      const db = createPrismaClient(env.server.databaseUrl);
      try {
        const m = await createMerchantViaCli(env.server.env, "Breaker Recovery");
        const key = await approveLiveViaCli(env.server.env, m.merchantId);
        await attestConsent(env.server.databaseUrl, m.merchantId);
        const credit = ["wallet", "credit", "--merchant", m.merchantId, "--mode", "live", "--amount", "1000", "--reason", "first top-up"];
        expect((await cli(env.server.env, credit)).code).toBe(0);
        const liveAuth = { Authorization: `Bearer ${key.secretKey}` };
        const kycHeaders = { "x-api-key": key.publicKey, "x-api-secret": key.secretKey };
        const bank = () =>
          request(env.server.url, "/api/kyc/bank/verify", {
            method: "POST",
            body: { merchantId: m.merchantId, accountNumber: "026291800001191", ifsc: "YESB0000262" },
            headers: kycHeaders,
          });
        const epfo = () => request(env.server.url, "/v1/employment/epfo/verify", { method: "POST", body: { uan: "100200300400" }, headers: liveAuth });
        const balance = async () =>
          (await db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId: m.merchantId, mode: "live" } } })).balancePaise;

        // The price of one bank check, from one that succeeds.
        const start = await balance();
        expect((await bank()).status).toBe(200);
        const price = start - (await balance());
        expect(price).toBeGreaterThan(0);

        vendor.fail("bank", "500");
        vendor.fail("epfo", "500");
        for (let i = 0; i < 5; i++) {
          expect((await bank()).status).toBe(503);
          expect((await epfo()).status).toBe(503);
        }
        const openedAt = Date.now();
        const sent = { bank: vendor.count("/bank-account/sync"), epfo: vendor.count("/advance-employment") };
        const refused = await bank();
        expect(refused.status).toBe(503);
        expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(25);
        expect((await epfo()).status).toBe(503);
        expect(vendor.count("/bank-account/sync")).toBe(sent.bank);
        expect(vendor.count("/advance-employment")).toBe(sent.epfo);

        // The bank vendor recovers during the pause; the EPFO vendor does not.
        vendor.clear();
        vendor.fail("epfo", "500");
        await new Promise((r) => setTimeout(r, openedAt + OPEN_MS + 300 - Date.now()));

        // Bank: the trial call reaches the vendor and succeeds; the next call reaches it too.
        expect((await bank()).status).toBe(200);
        expect(vendor.count("/bank-account/sync")).toBe(sent.bank + 1);
        expect((await bank()).status).toBe(200);
        expect(vendor.count("/bank-account/sync")).toBe(sent.bank + 2);
        // Charged for the three checks that succeeded, never for a failure or a refusal.
        expect(await balance()).toBe(start - 3 * price);

        // EPFO: the trial call reaches the vendor and fails; the circuit is open again for a whole pause.
        expect((await epfo()).status).toBe(503);
        expect(vendor.count("/advance-employment")).toBe(sent.epfo + 1);
        const again = await epfo();
        expect(again.status).toBe(503);
        expect(again.json.error.code).toBe("SOURCE_UNAVAILABLE");
        expect(Number(again.headers["retry-after"])).toBeGreaterThanOrEqual(25);
        expect(vendor.count("/advance-employment")).toBe(sent.epfo + 1);
        expect(vendor.problems).toEqual([]);
      } finally {
        await db.$disconnect();
        await env.stop();
        await vendor.close();
      }
    },
  );
});
