"use client";

import { Card, PageHeader } from "@/components/ui";
import { ActivityFeed } from "../admin-ui";

export function ActivityView() {
  return (
    <div>
      <PageHeader title="Activity" description="Every operator action, newest first: who did what to which merchant, and when." />
      <Card>
        <ActivityFeed />
      </Card>
    </div>
  );
}
