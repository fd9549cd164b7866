import type { Metadata } from "next";
import { AutomaticRefundsPanel } from "./automatic-refunds-panel";
import { MerchantsList } from "./merchants-list";
import { UpstreamPanel } from "./upstream-panel";

export const metadata: Metadata = { title: "Merchants" };

export default async function AdminMerchantsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : "");
  return (
    <div className="space-y-6">
      <MerchantsList initialQ={one(params.q)} initialFilter={one(params.filter)} />
      <UpstreamPanel />
      <AutomaticRefundsPanel />
    </div>
  );
}
