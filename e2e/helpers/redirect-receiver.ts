import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for the merchant's server on a loopback port of its own: records each visit to the
 * return page's query string and answers 200 to anything else (webhook deliveries included).
 */
export interface RedirectReceiver {
  url: string;
  /** `http://127.0.0.1:<port>`: for other paths on the same stand-in, such as a webhook endpoint. */
  origin: string;
  visits: URLSearchParams[];
  close(): Promise<void>;
}

export async function startRedirectReceiver(): Promise<RedirectReceiver> {
  const visits: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/return") visits.push(url.searchParams);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Merchant</title><h1>Back at the merchant</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/return`,
    origin: `http://127.0.0.1:${port}`,
    visits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
