import type { Metadata } from "next";
import { PaymentDetail } from "./payment-detail";

export async function generateMetadata({ params }: { params: Promise<{ paymentId: string }> }): Promise<Metadata> {
  return { title: `Payment ${(await params).paymentId}` };
}

export default async function PaymentDetailPage({ params }: { params: Promise<{ paymentId: string }> }) {
  const { paymentId } = await params;
  return <PaymentDetail paymentId={paymentId} />;
}
