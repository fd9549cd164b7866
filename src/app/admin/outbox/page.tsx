import type { Metadata } from "next";
import { getServices } from "@/server/services";
import { OutboxView } from "./outbox-view";

export const metadata: Metadata = { title: "Outbox" };

export default function AdminOutboxPage() {
  return <OutboxView smtpConfigured={Boolean(getServices().config.smtpUrl)} />;
}
