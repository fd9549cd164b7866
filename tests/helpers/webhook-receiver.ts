import http from "node:http";

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A merchant's webhook receiver on loopback: records every delivery and answers what the test sets (200 by default; 302 redirects). */
export function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  let answer = 200;
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (answer === 302) res.writeHead(302, { Location: "http://127.0.0.1:1/elsewhere" });
      else res.writeHead(answer, { "Content-Type": "text/plain" });
      res.end(answer === 200 ? "ok" : `nope ${answer}`);
    });
  });
  return new Promise<{ url: string; received: ReceivedWebhook[]; setAnswer: (s: number) => void; close: () => void }>((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      resolve({ url: `http://127.0.0.1:${port}/hooks`, received, setAnswer: (s) => (answer = s), close: () => server.close() });
    }),
  );
}

export interface MisbehavingHit {
  path: string;
  openedAt: number;
  /** When the sender closed the connection (null while open). */
  closedAt: number | null;
  /** Body bytes handed to the socket before it closed. */
  bytesWritten: number;
}

/**
 * Receivers that answer in ways a sender must survive, by path:
 * - `/trickle…`: 200 with a 10 MB Content-Length, then one byte every 200 ms;
 * - `/stream…`: 200, then a body as fast as the socket takes it, for 30 s;
 * - `/unfinished…`: 200 and "ok", then the body never ends;
 * - `/big…`: 200 and a 100 KiB body at once;
 * - `/exact…`: 200 and a body of exactly 64 KiB;
 * - anything else: 200 "ok".
 * Every request is recorded with when it opened and closed and how much body it was sent.
 */
export function startMisbehavingReceiver() {
  const hits: MisbehavingHit[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const hit: MisbehavingHit = { path, openedAt: Date.now(), closedAt: null, bytesWritten: 0 };
    hits.push(hit);
    let open = true;
    const timers: NodeJS.Timeout[] = [];
    res.on("close", () => {
      open = false;
      hit.closedAt = Date.now();
      for (const t of timers) clearInterval(t);
    });
    const write = (chunk: Buffer | string) => {
      hit.bytesWritten += Buffer.byteLength(chunk);
      return res.write(chunk);
    };
    req.resume();
    req.on("end", () => {
      if (path.startsWith("/trickle")) {
        res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": String(10_000_000) });
        timers.push(setInterval(() => open && write("a"), 200));
      } else if (path.startsWith("/stream")) {
        res.writeHead(200, { "Content-Type": "text/plain" });
        const chunk = Buffer.alloc(64 * 1024, "b");
        const until = Date.now() + 30_000;
        const pump = () => {
          while (open && Date.now() < until) if (!write(chunk)) return void res.once("drain", pump);
          if (open) res.end();
        };
        pump();
      } else if (path.startsWith("/unfinished")) {
        res.writeHead(200, { "Content-Type": "text/plain" });
        write("ok");
      } else if (path.startsWith("/exact")) {
        res.writeHead(200, { "Content-Type": "text/plain" });
        write(Buffer.alloc(64 * 1024, "d"));
        res.end();
      } else if (path.startsWith("/big")) {
        res.writeHead(200, { "Content-Type": "text/plain" });
        write(Buffer.alloc(100 * 1024, "c"));
        res.end();
      } else {
        res.writeHead(200, { "Content-Type": "text/plain" });
        write("ok");
        res.end();
      }
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return new Promise<{ url: string; hits: MisbehavingHit[]; close: () => void }>((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        hits,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      });
    }),
  );
}
