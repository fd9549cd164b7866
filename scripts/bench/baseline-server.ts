import http from "node:http";

// The yardstick: plain node:http answering a small JSON POST, measured in the same run.
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ status: "success", data: { echo: body }, timestamp: new Date().toISOString() }));
  });
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const addr = server.address();
  process.stderr.write(JSON.stringify({ msg: "listening", port: typeof addr === "object" && addr ? addr.port : 0 }) + "\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
