import type { Metadata } from "next";
import { KycDetail } from "./kyc-detail";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: `KYC ${(await params).id}` };
}

export default async function KycDetailPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <KycDetail id={id} />;
}
