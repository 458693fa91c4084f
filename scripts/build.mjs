#!/usr/bin/env node
// `npm install` (prepare) and `npm run build`: compile shared/ and server/ to dist/, make the
// CLI executable, and build the web app into dist/web.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, rmSync } from "node:fs";

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

rmSync("dist/shared", { recursive: true, force: true });
rmSync("dist/server", { recursive: true, force: true });
run("npx", ["tsc", "-p", "tsconfig.build.json"]);
// One bundled file for the CLI: it starts in ~0.1 s of CPU instead of ~0.4 s (server/build-cli.mjs).
if (existsSync("dist/server/cli.js")) run("node", ["server/build-cli.mjs"]);
if (existsSync("dist/server/cli.js")) chmodSync("dist/server/cli.js", 0o755);
if (existsSync("web/index.html")) {
  run("npx", ["vite", "build", "--logLevel", "warn"]);
  // One-chunk build that `wink-debug bundle` inlines into a self-contained HTML file.
  run("npx", ["vite", "build", "--mode", "standalone", "--logLevel", "warn"]);
}
