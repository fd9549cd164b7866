import type { Metadata } from "next";
import { PaymentDetail } from "./payment-detail";

export const metadata: Metadata = { title: "Payment" };

export default async function PaymentDetailPage({ params }: { params: Promise<{ paymentId: string }> }) {
  const { paymentId } = await params;
  return <PaymentDetail paymentId={paymentId} />;
}
