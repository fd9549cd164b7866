import { refundData } from "@/lib/schemas/api-objects";
import { pathIdField } from "@/server/api/path-id";

// What the refund operations share: the refund object and its id in paths.

export const refundIdField = pathIdField(80, "REFUND_NOT_FOUND").meta({ example: "rfnd_Q2x7LmP0aZk3Vb9T" });

export { refundData };
