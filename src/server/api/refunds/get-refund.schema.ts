import { z } from "zod";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { refundData, refundIdField } from "@/server/api/refunds/refund.schema";

export const getRefundInput = z.object({ refundId: refundIdField });
export const getRefundOutput = apiEnvelope(refundData);

export const getRefundMeta = {
  openapi: {
    method: "GET",
    path: "/api/refunds/{refundId}",
    tags: ["Refunds"],
    summary: "Get a refund",
    description: "Another merchant's or the other mode's refund answers 404 REFUND_NOT_FOUND, like an unknown id.",
  },
  rest: { auth: "merchant", errors: ["REFUND_NOT_FOUND"] },
} satisfies RestOperationMeta;
