import type { Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { primeSignInHash } from "@/server/services/accounts/sign-in";
import { insertNewMerchant } from "@/server/services/merchants/merchants";

/** `.invalid` is reserved (RFC 2606): no account has it, and the rehearsal below never keeps one. */
const WARM_UP_EMAIL = "warm-up@parakh.invalid";

class Rollback extends Error {}

/**
 * The database side of the first sign-up after a start, done before anyone waits for it: the
 * sign-in's stand-in password hash, the email look-ups, and the sign-up's own transaction (the
 * merchant, its key, signing secret and wallet credit), rolled back so nothing is kept. Prisma
 * prepares each query shape on first use; that and the first interactive transaction are the cold part.
 */
export async function warmSignupPath(db: Db): Promise<void> {
  await primeSignInHash();
  await db.merchant.findUnique({ where: { email: WARM_UP_EMAIL }, select: { id: true } });
  await db.merchant.findUnique({ where: { email: WARM_UP_EMAIL } });
  await db
    .$transaction(async (tx) => {
      await insertNewMerchant(tx, { id: newId("mer"), name: "Warm-up", email: WARM_UP_EMAIL, passwordHash: "warm-up" });
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
}
