// Run as a child process by daemons.test.ts: starts nginx, says where, then waits to be killed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startNginx } from "./nginx.test-support.js";

const root = mkdtempSync(path.join(tmpdir(), "wink-orphan-root-"));
const server = await startNginx(root);
process.stdout.write(`${JSON.stringify({ dir: server.dir, url: server.url, root })}\n`);
setInterval(() => undefined, 1000);
