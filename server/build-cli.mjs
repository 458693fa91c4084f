#!/usr/bin/env node
// Bundles the compiled CLI (dist/server/cli.js, from tsc) with its dependencies into that one
// file. Loading ~1,500 small modules cost ~0.4 s of CPU at every start; one bundled file
// costs ~0.1 s, which is what keeps `npx wink-debug` under 300 ms to its first answer.
// Called by scripts/build.mjs after tsc.
import { existsSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const compiled = path.join(root, "dist", "server", "cli.js");
if (!existsSync(compiled)) {
  console.error("build-cli: dist/server/cli.js is missing (run tsc -p tsconfig.build.json first)");
  process.exit(1);
}
const unbundled = path.join(root, "dist", "server", "cli.unbundled.js");
renameSync(compiled, unbundled);
try {
  await build({
    entryPoints: [unbundled],
    outfile: compiled,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    legalComments: "none",
    // CommonJS dependencies (fastify, pino) call require() for Node built-ins.
    banner: { js: "import { createRequire as __winkCreateRequire } from 'node:module';\nconst require = __winkCreateRequire(import.meta.url);" },
  });
} finally {
  rmSync(unbundled, { force: true });
}
