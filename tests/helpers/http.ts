import http from "node:http";

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body sent as is (no JSON encoding, no content type added). */
  rawBody?: string | Buffer;
  /** Source address, e.g. 127.0.0.2, to test IP rules from a second loopback address. */
  localAddress?: string;
}

/** A plain node:http client: lets tests pick the source address and send any bytes. */
export function request(baseUrl: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let payload: Buffer | undefined;
  if (opts.rawBody !== undefined) payload = Buffer.from(opts.rawBody);
  else if (opts.body !== undefined) {
    payload = Buffer.from(JSON.stringify(opts.body));
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["Content-Type"] = "application/json";
  }
  if (payload) headers["Content-Length"] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? (payload ? "POST" : "GET"),
        headers,
        localAddress: opts.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("error", reject);
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on("error", reject);
    req.on("socket", (socket) => socket.on("error", reject));
    if (payload) req.write(payload);
    req.end();
  });
}
