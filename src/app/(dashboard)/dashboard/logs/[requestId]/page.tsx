import type { Metadata } from "next";
import { LogDetail } from "./log-detail";

export async function generateMetadata({ params }: { params: Promise<{ requestId: string }> }): Promise<Metadata> {
  return { title: `Request ${(await params).requestId}` };
}

export default async function LogDetailPage({
  params,
  searchParams,
}: {
  params: Promise<{ requestId: string }>;
  searchParams: Promise<{ id?: string | string[] }>;
}) {
  const { requestId } = await params;
  const { id } = await searchParams;
  return <LogDetail requestId={requestId} id={typeof id === "string" ? id : undefined} />;
}
