import { startBenchVendor } from "./fake-vendor";

/**
 * The bench's fake vendor (./fake-vendor.ts) in a process of its own, driven over the IPC channel:
 * the load generator's event loop then does not also answer the vendor's calls, and the CPU each
 * one uses is measured apart. Messages: { latencyMs } sets the latency; { counts } asks for
 * { panCalls, connections, cpuUs }; it prints its URL and credentials as its first message.
 */
async function main() {
  const vendor = await startBenchVendor();
  process.on("message", (m: { latencyMs?: number; counts?: number }) => {
    if (m.latencyMs !== undefined) {
      vendor.setLatency(m.latencyMs);
      process.send!({ latencySet: m.latencyMs });
    }
    if (m.counts !== undefined) {
      const cpu = process.cpuUsage();
      process.send!({ counts: m.counts, panCalls: vendor.panCalls(), connections: vendor.connections(), cpuUs: cpu.user + cpu.system });
    }
  });
  process.on("disconnect", () => void vendor.close().then(() => process.exit(0)));
  process.send!({ url: vendor.url, clientId: vendor.clientId, clientSecret: vendor.clientSecret });
}

void main();
