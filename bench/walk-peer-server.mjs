// The peer of bench/server-walk.bench.ts: a bare node:http server answering the walk's
// routes for a directory of session files with the least work each answer needs: line
// offsets found once at start, then per request one positional read, JSON.parse and
// JSON.stringify. No cache, no markdown, no lossless numbers, no checks.
// Usage: node bench/walk-peer-server.mjs DIR   (prints http://127.0.0.1:PORT/)
import { openSync, readFileSync, readSync, readdirSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";

const dir = process.argv[2];
const files = new Map();
for (const name of readdirSync(dir).filter((n) => n.endsWith(".jsonl"))) {
  const bytes = readFileSync(path.join(dir, name));
  const lines = [];
  let start = 0;
  for (let n = 1; start < bytes.length; n++) {
    let end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    if (end > start) lines.push({ line: n, offset: start, length: end - start });
    start = end + 1;
  }
  files.set(name, { fd: openSync(path.join(dir, name), "r"), lines, mtime: statSync(path.join(dir, name)).mtimeMs });
}

function parseLine(file, lineNumber) {
  const line = file.lines.find((l) => l.line === lineNumber);
  const buffer = Buffer.allocUnsafe(line.length);
  readSync(file.fd, buffer, 0, line.length, line.offset);
  return JSON.parse(buffer.toString("utf8"));
}

function answer(url) {
  const query = url.searchParams;
  if (url.pathname === "/api/snapshots") return [...files].sort((a, b) => b[1].mtime - a[1].mtime).map(([name]) => ({ path: name, name }));
  const file = files.get(query.get("file") ?? "");
  if (file === undefined) return null;
  if (url.pathname === "/api/entries") return file.lines.map((l) => ({ line_number: l.line }));
  const value = parseLine(file, Number(query.get("line")));
  if (url.pathname === "/api/raw") return value;
  if (url.pathname === "/api/meta") {
    return { created_at: value.created_at, tags: value.tags, line_number: Number(query.get("line")), slices: value.slices.map((s) => ({ slice_type: s.slice_type, item_type: s.item_type, count: s.items.length })) };
  }
  if (url.pathname.startsWith("/api/slices/")) {
    const type = decodeURIComponent(url.pathname.slice("/api/slices/".length));
    const slice = value.slices.find((s) => s.slice_type === type);
    return slice === undefined ? null : { slice_type: slice.slice_type, item_type: slice.item_type, items: slice.items };
  }
  return null;
}

const server = http.createServer((request, response) => {
  const body = answer(new URL(request.url ?? "/", "http://127.0.0.1"));
  if (body === null) {
    response.writeHead(404).end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
});
server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}/`));
process.on("SIGTERM", () => process.exit(0));
