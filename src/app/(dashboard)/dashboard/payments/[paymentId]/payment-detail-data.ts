import type { RouterOutputs } from "@/components/trpc/client";

/** What a payment's page shows: the payment, its attempts, timeline, refunds and webhooks (payments.get). */
export type PaymentDetailData = RouterOutputs["payments"]["get"];
