import type { Server } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionLimits {
  /** Most open sockets from one client address. */
  maxPerAddress: number;
}

/**
 * Caps the sockets one address may hold open, so one client cannot take every connection slot.
 * The cap is per TCP peer: merchants behind one NAT and load tests legitimately open many, hence a
 * generous default. (Idle and slow sockets are closed by the server's timeouts.)
 */
export function guardConnections(server: Server, limits: ConnectionLimits) {
  const perAddress = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    const open = (perAddress.get(address) ?? 0) + 1;
    if (open > limits.maxPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, open);
    socket.once("close", () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
  return { openFrom: (address: string) => perAddress.get(address) ?? 0 };
}
