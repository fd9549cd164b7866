import type { Metadata } from "next";
import { MerchantDetail } from "./merchant-detail";

export const metadata: Metadata = { title: "Merchant" };

export default async function AdminMerchantPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <MerchantDetail merchantId={id} />;
}
