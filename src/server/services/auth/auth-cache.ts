import type { Db } from "@/server/db/client";
import { IpMatcher } from "@/server/lib/ip";
import { log } from "@/server/lib/logger";
import type { Mode } from "@/lib/mode";
import { onLocalAuthChange, readAuthEpoch } from "@/server/services/auth/auth-epoch";
import { hashSecretKey, isKeyUsable } from "@/server/services/auth/api-keys";
import { safeEqual } from "@/server/lib/crypto";
import type { KycFees } from "@/lib/kyc";
import type { StandingConsent } from "@/server/services/consent/consent";

export interface CachedMerchant {
  id: string;
  status: string;
  liveEnabled: boolean;
  enforceWhitelistAll: boolean;
  checkoutExpiryMinutes: number;
  /** KYC fees in paise; an operator's change bumps the auth epoch like any key change. */
  kycFees: KycFees;
  /** The default purpose and standing consent attestation (C6); a change bumps the auth epoch. */
  consent: StandingConsent;
  whitelist: IpMatcher;
}

export interface CachedKey {
  id: string;
  merchantId: string;
  mode: Mode;
  publicKey: string;
  secretHash: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
  merchant: CachedMerchant;
}

const MAX_NEGATIVE = 10_000;
const LAST_USED_FLUSH_MS = 5_000;

/**
 * API-key lookups without a database read on the hot path. Entries live until the auth epoch
 * moves (polled every AUTH_CACHE_POLL_MS) or a same-process change clears them.
 */
export class AuthCache {
  private readonly keys = new Map<string, CachedKey>();
  private readonly misses = new Set<string>();
  private readonly inflight = new Map<string, Promise<CachedKey | null>>();
  private readonly lastUsed = new Map<string, Date>();
  private epoch = -1;
  /** Moves on every clear, so a lookup that raced a change is not cached. */
  private generation = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly pollMs: number,
  ) {}

  start() {
    this.unsubscribe = onLocalAuthChange(() => this.clear());
    const poll = async () => {
      try {
        const v = await readAuthEpoch(this.db);
        if (v !== this.epoch) {
          this.epoch = v;
          this.clear();
        }
      } catch (err) {
        log.warn("auth epoch poll failed", { err });
      }
    };
    void poll();
    this.pollTimer = setInterval(poll, this.pollMs);
    this.pollTimer.unref();
    this.flushTimer = setInterval(() => void this.flushLastUsed(), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async stop() {
    clearInterval(this.pollTimer);
    clearInterval(this.flushTimer);
    this.unsubscribe?.();
    await this.flushLastUsed();
  }

  clear() {
    this.generation++;
    this.keys.clear();
    this.misses.clear();
  }

  /** The usable key for a secret, or null. Constant-time compare of the stored hash. */
  async bySecret(secret: string): Promise<CachedKey | null> {
    const hash = hashSecretKey(secret);
    let entry: CachedKey | null | undefined = this.keys.get(hash);
    if (entry === undefined) {
      if (this.misses.has(hash)) return null;
      entry = await this.load(hash);
    }
    if (!entry || !safeEqual(entry.secretHash, hash) || !isKeyUsable(entry)) return null;
    this.lastUsed.set(entry.id, new Date());
    return entry;
  }

  private load(hash: string): Promise<CachedKey | null> {
    let p = this.inflight.get(hash);
    if (!p) {
      p = this.fetch(hash).finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, p);
    }
    return p;
  }

  private async fetch(hash: string): Promise<CachedKey | null> {
    const generationAtStart = this.generation;
    const row = await this.db.apiKey.findUnique({
      where: { secretHash: hash },
      include: {
        merchant: {
          select: {
            id: true,
            status: true,
            liveEnabled: true,
            enforceWhitelistAll: true,
            checkoutExpiryMinutes: true,
            kycFeeAadhaarPaise: true,
            kycFeePanPaise: true,
            kycFeeBankPaise: true,
            consentPurpose: true,
            consentStandingAt: true,
            whitelist: { select: { cidr: true } },
          },
        },
      },
    });
    if (!row) {
      if (this.misses.size >= MAX_NEGATIVE) this.misses.clear();
      if (generationAtStart === this.generation) this.misses.add(hash);
      return null;
    }
    const entry: CachedKey = {
      id: row.id,
      merchantId: row.merchantId,
      mode: row.mode as Mode,
      publicKey: row.publicKey,
      secretHash: row.secretHash,
      revokedAt: row.revokedAt,
      expiresAt: row.expiresAt,
      merchant: {
        id: row.merchant.id,
        status: row.merchant.status,
        liveEnabled: row.merchant.liveEnabled,
        enforceWhitelistAll: row.merchant.enforceWhitelistAll,
        checkoutExpiryMinutes: row.merchant.checkoutExpiryMinutes,
        kycFees: { AADHAAR_OTP: row.merchant.kycFeeAadhaarPaise, PAN: row.merchant.kycFeePanPaise, BANK: row.merchant.kycFeeBankPaise },
        consent: { purpose: row.merchant.consentPurpose, standing: row.merchant.consentStandingAt !== null },
        whitelist: new IpMatcher(row.merchant.whitelist.map((w) => w.cidr)),
      },
    };
    // A change that landed while we were reading must not be overwritten by stale data.
    if (generationAtStart === this.generation) this.keys.set(hash, entry);
    return entry;
  }

  private async flushLastUsed() {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed.entries()];
    this.lastUsed.clear();
    try {
      for (const [id, at] of batch) {
        await this.db.apiKey.updateMany({ where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] }, data: { lastUsedAt: at } });
      }
    } catch (err) {
      log.warn("could not record key last-used times", { err });
    }
  }
}
