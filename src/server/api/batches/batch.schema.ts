import type { BatchKind } from "@/server/services/batches/batches";
import { pathIdField } from "@/server/api/path-id";

// What the batch operations share: where each kind lives, and the batch id in paths.

export const PATH: Record<BatchKind, `/${string}`> = { PAN: "/v1/identity/pan/batch", EPFO: "/v1/employment/epfo/batch" };
export const TAG: Record<BatchKind, string> = { PAN: "Identity", EPFO: "Employment" };
export const NOUN: Record<BatchKind, string> = { PAN: "PAN", EPFO: "EPFO" };

export const batchIdField = pathIdField(64, "BATCH_NOT_FOUND").meta({ description: "The batch_id the POST answered.", example: "batch_8fK2mQ7xLp3Rt9Za" });
