import { startBenchVendor } from "./fake-vendor";

/**
 * The bench's fake vendor (./fake-vendor.ts) in a process of its own (startBenchVendorProcess): it
 * sends its address and credentials first, then answers each { id, question, arg } with { id, answer }.
 */
async function main() {
  const vendor = await startBenchVendor();
  const questions: Record<string, (arg?: number) => Promise<unknown>> = {
    panCalls: () => vendor.panCalls(),
    connections: () => vendor.connections(),
    cpuUs: () => vendor.cpuUs(),
    setLatency: (ms?: number) => vendor.setLatency(ms ?? 0),
  };
  process.on("message", (m: { id: number; question: string; arg?: number }) => {
    void questions[m.question]!(m.arg).then((answer) => process.send!({ id: m.id, answer }));
  });
  process.on("disconnect", () => void vendor.close().then(() => process.exit(0)));
  process.send!({ url: vendor.url, clientId: vendor.clientId, clientSecret: vendor.clientSecret });
}

void main();
