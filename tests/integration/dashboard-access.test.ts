import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dashboardContext } from "../helpers/dashboard";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-access-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
delete process.env.BASE_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");

// Procedures anyone may call: sign-up, forgot/reset password (guarded by the emailed token), and the
// hosted checkout's (guarded by the payment's token).
const PUBLIC = new Set([
  "account.signup",
  "security.requestPasswordReset",
  "security.checkResetLink",
  "security.resetPassword",
  "checkout.state",
  "checkout.pay",
  "checkout.cardHandOff",
  "checkout.cancel",
  "checkout.abandon",
  "checkout.simulate",
]);

type Caller = ReturnType<typeof dashboardRouter.createCaller>;
const ctx = (session: { id: string; email: string; role: "merchant" | "admin" } | null) => dashboardContext(getServices(), session);

function call(caller: Caller, name: string, input: unknown): Promise<unknown> {
  const fn = name.split(".").reduce<unknown>((acc, seg) => (acc as Record<string, unknown>)[seg], caller) as (i: unknown) => Promise<unknown>;
  return fn(input);
}

describe("who may call each dashboard procedure", () => {
  const names = Object.keys(dashboardRouter._def.procedures);

  beforeAll(async () => {
    await migrateTestDatabase(process.env.DATABASE_URL!);
  });

  it("knows every procedure", () => {
    expect(names.length).toBeGreaterThan(30);
    for (const p of PUBLIC) expect(names).toContain(p);
  });

  it("refuses signed-out callers on every non-public procedure", async () => {
    const anon = dashboardRouter.createCaller(ctx(null));
    for (const name of names.filter((n) => !PUBLIC.has(n))) {
      await expect(call(anon, name, { mode: "sandbox" }), name).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    }
  });

  // Signed in with the other role: FORBIDDEN (signing in again would not help), not UNAUTHORIZED.
  it("keeps operator procedures from merchants and merchant procedures from operators (FORBIDDEN)", async () => {
    const merchant = dashboardRouter.createCaller(ctx({ id: "mer_x", email: "m@example.com", role: "merchant" }));
    const admin = dashboardRouter.createCaller(ctx({ id: "adm_x", email: "a@example.com", role: "admin" }));
    for (const name of names.filter((n) => n.startsWith("admin."))) {
      await expect(call(merchant, name, {}), name).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    for (const name of names.filter((n) => !n.startsWith("admin.") && !PUBLIC.has(n))) {
      await expect(call(admin, name, { mode: "sandbox" }), name).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
  });

  it("refuses the hosted checkout's procedures without a valid token", async () => {
    const anon = dashboardRouter.createCaller(ctx(null));
    for (const name of [...PUBLIC].filter((n) => n.startsWith("checkout."))) {
      // The card hand-off takes the token alone (it refuses any other field, a card number above all).
      const input =
        name === "checkout.cardHandOff"
          ? { paymentId: "pay_1_x", token: "ct1.zz.forged" }
          : { paymentId: "pay_1_x", token: "ct1.zz.forged", outcome: "SUCCESS", then: "retry", payment: { method: "UPI", flow: "qr" } };
      await expect(call(anon, name, input), name).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
  });
});
