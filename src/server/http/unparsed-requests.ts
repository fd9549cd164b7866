import http, { type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { newId } from "@/server/lib/ids";
import { errorBody } from "@/server/rest/envelope";
import { restKindOf } from "@/server/rest/paths";

/** How long a socket whose request was answered this way may stay open for the client to read. */
const CLOSE_AFTER_MS = 5_000;
/** The most of a refused packet read for its request line and headers (Node's own header limit). */
const HEAD_BYTES = 16 * 1024;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.[01]$/;

/**
 * The request a parser error left in its raw packet, when it is only the method Node does not know
 * (`FOO / HTTP/1.1`): its request line, and its headers when they arrived whole. The body is not read.
 */
export function requestFromRawHead(raw: Buffer, socket: Socket): IncomingMessage | null {
  const text = raw.subarray(0, HEAD_BYTES).toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  const [requestLine = "", ...lines] = (end === -1 ? text.slice(0, Math.max(0, text.indexOf("\r\n"))) : text.slice(0, end)).split("\r\n");
  const m = REQUEST_LINE.exec(requestLine);
  if (!m) return null;
  const req = new http.IncomingMessage(socket);
  req.method = m[1]!;
  req.url = m[2]!;
  req.httpVersion = "1.1";
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).toLowerCase();
    if (colon <= 0 || !TOKEN.test(name)) continue;
    const value = line.slice(colon + 1).trim();
    req.rawHeaders.push(line.slice(0, colon), value);
    const prior = req.headers[name];
    req.headers[name] = prior === undefined ? value : `${String(prior)}, ${value}`;
  }
  return req;
}

/**
 * A request whose line and headers overflow Node's 16 KiB (a URL that long, say) to a REST path: its
 * 431 in the API's envelope, with a request id. The path is read from the start of the raw packet.
 */
export function headersTooLargeAnswer(raw: Buffer | undefined): string | null {
  const start = raw?.subarray(0, 2048).toString("latin1") ?? "";
  const path = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\/[^ ?#\r\n]*)/.exec(start)?.[1];
  const kind = path === undefined ? null : restKindOf(path);
  if (!kind) return null;
  const requestId = newId("req");
  const body = JSON.stringify(errorBody(kind, requestId, { code: "REQUEST_HEADERS_TOO_LARGE" }));
  return [
    "HTTP/1.1 431 Request Header Fields Too Large",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    "Cache-Control: no-store",
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** Node's own answers to a request it cannot parse, as it writes them when nobody listens for 'clientError'. */
function nodeDefaultAnswer(err: NodeJS.ErrnoException): string {
  const status =
    err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "HPE_CHUNK_EXTENSIONS_OVERFLOW" ? 413 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;
}

/**
 * Requests Node's HTTP parser never hands to the request listener: a method it does not know
 * (`FOO`), a parse error it answers with a bare 400, and `CONNECT`, whose socket it closes without
 * a word. Both are given to the server's own 'request' listener like every other request (so an
 * API path gets its 405 with Allow, or 404, in the envelope, with a request id and an audit
 * record), and the connection is closed after the answer. Other parse errors get Node's answer.
 */
export function answerUnparsedRequests(server: http.Server) {
  const answered = new WeakSet<Duplex>();
  // The response each socket is answering, until it is finished: a raw answer must not be mixed into it.
  const responses = new WeakMap<Duplex, http.ServerResponse>();
  server.on("request", (_req: IncomingMessage, res: http.ServerResponse) => {
    const socket = res.socket;
    if (!socket) return;
    responses.set(socket, res);
    const done = () => responses.get(socket) === res && responses.delete(socket);
    res.once("finish", done);
    res.once("close", done);
  });

  function answer(req: IncomingMessage, socket: Socket) {
    answered.add(socket);
    // Whatever follows the head is not read: the request ends there.
    if (!req.complete) req.push(null);
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once("finish", () => {
      res.detachSocket(socket);
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_AFTER_MS).unref();
    });
    server.emit("request", req, res);
  }

  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    if (responses.has(socket)) return void socket.destroy();
    answer(req, socket as Socket);
  });

  server.on("clientError", (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (answered.has(socket)) return void socket.destroy();
    const current = responses.get(socket);
    if (err.code === "HPE_INVALID_METHOD" && err.rawPacket && socket.writable && !current) {
      const req = requestFromRawHead(err.rawPacket, socket as Socket);
      if (req) return answer(req, socket as Socket);
    }
    // As Node does itself: its own answer, unless a response has begun on the socket; a REST path's in its envelope.
    const restAnswer = err.code === "HPE_HEADER_OVERFLOW" && !current ? headersTooLargeAnswer(err.rawPacket) : null;
    if (socket.writable && !current?.headersSent) socket.write(restAnswer ?? nodeDefaultAnswer(err));
    socket.destroy(err);
  });
}
