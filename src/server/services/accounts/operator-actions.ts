import type { Db, DbTx } from "@/server/db/client";
import { newId } from "@/server/lib/ids";

export type OperatorActionKind = "APPROVE_GO_LIVE" | "SUSPEND" | "REINSTATE" | "WALLET_CREDIT" | "WALLET_DEBIT" | "KYC_FEES";

/** Who acted: a signed-in operator, or the operator CLI on the server itself. */
export interface OperatorActor {
  id: string;
  email: string;
}

/** The CLI runs with the server's own database access; its actions are recorded under this name. */
export const CLI_OPERATOR: OperatorActor = { id: "cli", email: "operator CLI" };

/** Records who did what to which merchant; every operator action goes through here. */
export async function recordOperatorAction(
  db: Db | DbTx,
  admin: { id: string; email: string },
  action: OperatorActionKind,
  merchantId: string | null,
  details?: string,
) {
  await db.operatorAction.create({
    data: { id: newId("opa"), adminId: admin.id, adminEmail: admin.email, action, merchantId, details: details ?? null },
  });
}
