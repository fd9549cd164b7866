import type { Metadata } from "next";
import { KycView } from "./kyc-view";

export const metadata: Metadata = { title: "KYC" };

export default function KycPage() {
  return <KycView />;
}
