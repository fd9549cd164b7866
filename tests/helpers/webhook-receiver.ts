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
