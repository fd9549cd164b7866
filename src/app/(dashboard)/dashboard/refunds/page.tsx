import type { Metadata } from "next";
import { RefundsView } from "./refunds-view";

export const metadata: Metadata = { title: "Refunds" };

export default function RefundsPage() {
  return <RefundsView />;
}
