import { describe, expect, it } from "vitest";
import { JOB_HANDLERS } from "@/server/job-handlers/handlers";
import { ALL_JOBS } from "@/server/jobs/registry";

// Payloads as the queue stores them (JSON text), written out by hand in the shapes the services
// have enqueued them: rows already in a database must still fit after an upgrade.
const STORED: Record<string, string[]> = {
  "payment.expire": ['{"paymentId":"pay_1764330000000_a1B2c3D4e5F6g7"}'],
  "payment.attempt_timeout": ['{"attemptId":"att_a1B2c3D4e5F6g7H8"}'],
  "payment.processor_result": [
    '{"attemptId":"att_a1B2c3D4e5F6g7H8","outcome":"SUCCESS"}',
    '{"attemptId":"att_a1B2c3D4e5F6g7H8","outcome":"SUCCESS","bankReference":"HDFC0001"}',
    '{"attemptId":"att_a1B2c3D4e5F6g7H8","outcome":"FAILED","errorCode":"INSUFFICIENT_FUNDS","errorMessage":"Not enough money."}',
  ],
  "payment.reconcile": ['{"attemptId":"att_a1B2c3D4e5F6g7H8"}'],
  "payment.processor_webhook": ['{"webhookId":"pwh_a1B2c3D4e5F6g7H8"}'],
  "refund.process": ['{"refundId":"rfnd_a1B2c3D4e5F6g7H8"}'],
  "webhook.deliver": ['{"deliveryId":"del_a1B2c3D4e5F6g7H8"}'],
  "batch.work": ['{"batchId":"batch_a1B2c3D4e5F6g7H8"}'],
  "maintenance.retention": ['{"periodStart":"2026-12-07T12:00:00.000Z"}', '{"periodStart":null}'],
  "maintenance.sweep": ['{"periodStart":"2026-12-07T12:01:00.000Z"}'],
};

describe("the job registry", () => {
  it("declares every job once, and each has exactly one handler", () => {
    const declared = ALL_JOBS.map((job) => job.type);
    expect(new Set(declared).size).toBe(declared.length);
    expect(JOB_HANDLERS.map((h) => h.job.type).sort()).toEqual([...declared].sort());
  });

  it.each(ALL_JOBS.map((job) => [job.type, job] as const))("%s takes the payloads stored for it, unchanged", (type, job) => {
    expect(STORED[type], `no stored payloads written down for ${type}`).toBeDefined();
    for (const text of STORED[type]!) expect(job.payload.parse(JSON.parse(text))).toEqual(JSON.parse(text));
  });

  it.each([
    ["payment.expire", { paymentId: 42 }],
    ["payment.expire", { paymentId: "" }],
    ["payment.processor_result", { attemptId: "att_1", outcome: "FAILED" }],
    ["payment.processor_result", { attemptId: "att_1", outcome: "PENDING" }],
    ["batch.work", null],
    ["maintenance.sweep", { periodStart: "yesterday" }],
  ])("%s refuses %j", (type, payload) => {
    expect(ALL_JOBS.find((job) => job.type === type)!.payload.safeParse(payload).success).toBe(false);
  });
});
