import type { Metadata } from "next";
import { LogsView } from "./logs-view";

export const metadata: Metadata = { title: "Request logs" };

export default function LogsPage() {
  return <LogsView />;
}
