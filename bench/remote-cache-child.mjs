// Child of bench/remote.bench.ts (section 6): a new process, as a second `npx wink-debug URL
// [--cache-dir DIR]` would be. Builds the viewer on TARGET (the built dist), then asks the first
// /api/filesystem/tree of the run's unopened archive. Prints on stdout
// {"startToTree": ms, "tree": ms, "bytes": n, "requests": n, "files": n}: the store's bytes and
// requests for the tree alone (the listing and the run's index at start are not counted).
// Usage: node bench/remote-cache-child.mjs DIST_APP TARGET OPTIONS_JSON
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [library, target, optionsJson] = process.argv.slice(2);
const { buildApp } = await import(pathToFileURL(library).href);
const started = performance.now();
const { app, state } = await buildApp({ path: target, remote: JSON.parse(optionsJson), watch: false, indexInBackground: false, logger: false, webDir: "/nonexistent" });
const stats = state.directory.store.source.stats;
const [bytes, requests] = [stats.bytesReceived, stats.requests];
const asked = performance.now();
const answer = await app.inject({ method: "GET", url: "/api/filesystem/tree?file=tree-10k.jsonl", headers: { host: "127.0.0.1:8000" } });
const done = performance.now();
if (answer.statusCode !== 200) throw new Error(`tree on ${target}: ${answer.statusCode} ${answer.body.slice(0, 200)}`);
const files = JSON.parse(answer.body).length;
const result = { startToTree: done - started, tree: done - asked, bytes: stats.bytesReceived - bytes, requests: stats.requests - requests, files };
await app.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
