import { cache } from "react";
import { getServices } from "@/server/services";
import { loadCheckoutPage } from "@/server/services/payments/checkout-page";

/** The payment and the merchant's branding for the hosted page; null for an unknown id. Cached per request. */
export const loadCheckoutPayment = cache((paymentId: string) => loadCheckoutPage(getServices().db, paymentId));
