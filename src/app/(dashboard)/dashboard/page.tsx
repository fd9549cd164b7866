import { PageHeader } from "@/components/ui";

export default function OverviewPage() {
  return <PageHeader title="Overview" />;
}
