import type { Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";

export type OperatorActionKind = "APPROVE_GO_LIVE" | "SUSPEND" | "REINSTATE";

/** Records who did what to which merchant; every operator action goes through here. */
export async function recordOperatorAction(
  db: Db,
  admin: { id: string; email: string },
  action: OperatorActionKind,
  merchantId: string | null,
  details?: string,
) {
  await db.operatorAction.create({
    data: { id: newId("opa"), adminId: admin.id, adminEmail: admin.email, action, merchantId, details: details ?? null },
  });
}
