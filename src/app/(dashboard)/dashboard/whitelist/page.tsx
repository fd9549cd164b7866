import type { Metadata } from "next";
import { WhitelistView } from "./whitelist-view";

export const metadata: Metadata = { title: "IP whitelist" };

export default function WhitelistPage() {
  return <WhitelistView />;
}
