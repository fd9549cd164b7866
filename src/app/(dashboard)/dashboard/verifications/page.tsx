import type { Metadata } from "next";
import { VerificationsView } from "./verifications-view";

export const metadata: Metadata = { title: "Verifications" };

export default function VerificationsPage() {
  return <VerificationsView />;
}
