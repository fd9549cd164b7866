import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { wideRangeWarning } from "@/lib/schemas/whitelist";
import { parseCidr } from "@/server/lib/ip";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";
import { redactString } from "@/server/services/audit/redact";

export async function listWhitelist(db: Db, merchantId: string) {
  return db.ipWhitelistEntry.findMany({ where: { merchantId }, orderBy: { createdAt: "asc" } });
}

export async function addWhitelistEntry(db: Db, merchantId: string, input: string, label = "") {
  const parsed = parseCidr(input);
  if (!parsed) {
    throw new AppError("VALIDATION_ERROR", `"${input.slice(0, 60)}" is not an IPv4/IPv6 address or CIDR range (host bits must be zero, e.g. 10.0.0.0/8).`, {
      field: "ip",
    });
  }
  if (label.length > 100) throw new AppError("VALIDATION_ERROR", "label must be at most 100 characters", { field: "label" });
  const exists = await db.ipWhitelistEntry.findUnique({ where: { merchantId_cidr: { merchantId, cidr: parsed.text } } });
  if (exists) return exists;
  const entry = await db.ipWhitelistEntry.create({ data: { id: newId("wl"), merchantId, cidr: parsed.text, label: redactString(label) } });
  await bumpAuthEpoch(db);
  return entry;
}

/** Removes by entry id or by the address/range text. */
export async function removeWhitelistEntry(db: Db, merchantId: string, idOrCidr: string) {
  const cidr = parseCidr(idOrCidr)?.text;
  const res = await db.ipWhitelistEntry.deleteMany({
    where: { merchantId, OR: [{ id: idOrCidr }, ...(cidr ? [{ cidr }] : [])] },
  });
  if (res.count === 0) throw new AppError("NOT_FOUND", "No such whitelist entry.");
  await bumpAuthEpoch(db);
  return res.count;
}

/**
 * Adds an entry the dashboard way: an address already on the list is a CONFLICT on `ip` (instead of
 * the silent no-op the CLI wants), the list is capped at `maxEntries`, and a very wide range
 * (0.0.0.0/0, wider than a /16 or an IPv6 /48) needs `confirmWide`.
 */
export async function addNewWhitelistEntry(
  db: Db,
  merchantId: string,
  input: string,
  label: string,
  maxEntries: number,
  options: { confirmWide?: boolean } = {},
) {
  const parsed = parseCidr(input);
  if (parsed) {
    const wide = wideRangeWarning(parsed.text);
    if (wide && !options.confirmWide) throw new AppError("VALIDATION_ERROR", `${wide} Confirm that you mean it to add it.`, { field: "ip" });
    const exists = await db.ipWhitelistEntry.findUnique({ where: { merchantId_cidr: { merchantId, cidr: parsed.text } }, select: { id: true } });
    if (exists) throw new AppError("CONFLICT", `${parsed.text} is already on the list.`, { field: "ip" });
    const count = await db.ipWhitelistEntry.count({ where: { merchantId } });
    if (count >= maxEntries) {
      throw new AppError("VALIDATION_ERROR", `The list holds at most ${maxEntries} entries; use a CIDR range or remove an entry first.`, { field: "ip" });
    }
  }
  return addWhitelistEntry(db, merchantId, input, label);
}

/** The list and whether it also guards /v1 and KYC, for the dashboard. */
export async function whitelistOverview(db: Db, merchantId: string) {
  const [entries, merchant] = await Promise.all([
    listWhitelist(db, merchantId),
    db.merchant.findUnique({ where: { id: merchantId }, select: { enforceWhitelistAll: true } }),
  ]);
  if (!merchant) throw new AppError("NOT_FOUND", "This account no longer exists.");
  return { entries, enforceOnAllApis: merchant.enforceWhitelistAll };
}

/** Removes one entry by id only (the dashboard never removes by address). */
export async function removeWhitelistEntryById(db: Db, merchantId: string, id: string) {
  const entry = await db.ipWhitelistEntry.findFirst({ where: { id, merchantId }, select: { id: true, cidr: true } });
  if (!entry) throw new AppError("NOT_FOUND", "No such whitelist entry.");
  await removeWhitelistEntry(db, merchantId, entry.id);
  return { id: entry.id, cidr: entry.cidr };
}
