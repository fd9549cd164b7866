import type { Metadata } from "next";
import { MerchantsList } from "./merchants-list";

export const metadata: Metadata = { title: "Merchants" };

export default async function AdminMerchantsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : "");
  return <MerchantsList initialQ={one(params.q)} initialFilter={one(params.filter)} />;
}
