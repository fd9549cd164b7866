import net from "node:net";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The DATA section as sent (headers and body), dot-unstuffed. */
  data: string;
}

export interface SmtpServer {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Resolves with the next message (or one already received beyond `seen`). */
  waitForMessage: (seen?: number, timeoutMs?: number) => Promise<ReceivedMail>;
  close: () => Promise<void>;
}

/**
 * A tiny SMTP receiver on a loopback port: enough of RFC 5321 for one client to deliver plain
 * messages (no TLS, no auth), so tests can check what the app sends without any network.
 */
export async function startSmtpServer(): Promise<SmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.setEncoding("utf8");
    let buffer = "";
    let inData = false;
    let current: ReceivedMail = { from: "", to: [], data: "" };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 localhost test SMTP");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      let idx: number;
      while ((idx = buffer.indexOf("\r\n")) !== -1) {
        const line = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            messages.push(current);
            current = { from: "", to: [], data: "" };
            reply("250 2.0.0 queued");
            waiters.splice(0).forEach((w) => w());
          } else {
            current.data += (line.startsWith("..") ? line.slice(1) : line) + "\r\n";
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO") {
          reply("250-localhost");
          reply("250 8BITMIME");
        } else if (verb === "HELO") reply("250 localhost");
        else if (verb === "MAIL") {
          current.from = /<([^>]*)>/.exec(line)?.[1] ?? "";
          reply("250 2.1.0 ok");
        } else if (verb === "RCPT") {
          current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? "");
          reply("250 2.1.5 ok");
        } else if (verb === "DATA") {
          inData = true;
          reply("354 end with <CRLF>.<CRLF>");
        } else if (verb === "RSET") {
          current = { from: "", to: [], data: "" };
          reply("250 ok");
        } else if (verb === "NOOP") reply("250 ok");
        else if (verb === "QUIT") {
          reply("221 bye");
          socket.end();
        } else reply("502 5.5.2 not implemented");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitForMessage: (seen = messages.length, timeoutMs = 10_000) =>
      new Promise<ReceivedMail>((resolve, reject) => {
        const check = () => {
          if (messages.length > seen) {
            clearTimeout(timer);
            resolve(messages[seen]!);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => reject(new Error("no email arrived at the test SMTP server")), timeoutMs);
        const wait = () => {
          if (!check()) waiters.push(wait);
        };
        wait();
      }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
