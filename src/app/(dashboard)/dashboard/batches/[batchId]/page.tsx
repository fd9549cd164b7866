import type { Metadata } from "next";
import { BatchDetail } from "./batch-detail";

export async function generateMetadata({ params }: { params: Promise<{ batchId: string }> }): Promise<Metadata> {
  return { title: `Batch ${(await params).batchId}` };
}

export default async function BatchDetailPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  return <BatchDetail batchId={batchId} />;
}
