#!/usr/bin/env node
// Bundles the compiled CLI (dist/server/cli.js, from tsc) with its dependencies into one
// CommonJS file, dist/server/cli.bundle.cjs, and writes its V8 code cache. Loading ~1,500
// small modules cost ~0.4 s of CPU at every start; one bundled file ~0.1 s, and with the
// code cache the compile part of that (~50 ms) goes too: that is what keeps `npx wink-debug`
// under 300 ms to its first answer. The command (package.json's bin) is dist/server/cli.cjs,
// the small launcher (server/launcher.ts with server/code-cache.ts) that runs the bundle
// through the cache, itself CommonJS: an ES module entry point starts Node's ESM loader,
// ~10 ms of every start that a CommonJS one does not pay. The
// CPU worker the server starts on big diffs and huge lines is bundled the same way, as ESM.
// Called by scripts/build.mjs after tsc.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { BUNDLE_WRAPPER } from "../dist/server/code-cache.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const server = path.join(root, "dist", "server");
const compiled = path.join(server, "cli.js");
const launcher = path.join(server, "launcher.js");
const command = path.join(server, "cli.cjs");
const bundle = path.join(server, "cli.bundle.cjs");
const cache = path.join(server, "cli.bundle.cache");
if (!existsSync(compiled) || !existsSync(launcher)) {
  console.error("build-cli: dist/server/cli.js or launcher.js is missing (run tsc -p tsconfig.build.json first)");
  process.exit(1);
}
rmSync(cache, { force: true });
// Node modules the first answer never uses, which a module of the bundle imports when it
// loads: Fastify requires node:http2 for the `http2` option the server never sets, the remote
// store's code node:https and node:crypto, the archive code node:zlib… Loaded at start they
// cost ~40 of Node's own modules and ~20 ms of every start. Each is a stand-in that requires
// the module on its first use. Its property names are those of this Node's module, so that
// `import * as https` and `import zlib` (which copy them) do not load it either.
const LAZY_BUILTINS = ["child_process", "crypto", "dns", "http2", "https", "tls", "v8", "worker_threads", "zlib"];
const require = createRequire(import.meta.url);
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(builder) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join("|")})$`);
    // The stand-in's own require() of the module is left to Node.
    builder.onResolve({ filter }, (args) => (args.namespace === "wink-lazy" ? undefined : { path: args.path.replace(/^node:/, ""), namespace: "wink-lazy" }));
    builder.onLoad({ filter: /.*/, namespace: "wink-lazy" }, (args) => ({
      contents: `let loaded;
const load = () => (loaded ??= require("node:${args.path}"));
const names = ${JSON.stringify(Object.getOwnPropertyNames(require(`node:${args.path}`)))};
module.exports = new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => [...names],
  getOwnPropertyDescriptor: (_, key) => (names.includes(key) ? { value: undefined, writable: true, enumerable: true, configurable: true } : undefined),
});`,
      loader: "js",
      resolveDir: root,
    }));
  },
};
// The command's two CommonJS files: the bundle and its launcher. `import.meta.url` becomes the file's own URL.
const IMPORT_META_URL = "const __winkImportMetaUrl = require('node:url').pathToFileURL(__filename).href;";
const commonJs = { bundle: true, platform: "node", format: "cjs", target: "node20", logLevel: "warning", legalComments: "none", define: { "import.meta.url": "__winkImportMetaUrl" } };
await build({
  ...commonJs,
  entryPoints: [compiled],
  outfile: bundle,
  // CommonJS, because V8 code caches can be used for scripts (vm.Script) but not ES modules on Node 20.
  // Minified (names kept, for stack traces and Fastify's plugin names): 1.4 MB instead of
  // 3.0 MB to read, hash and keep in memory at every start (~1,400 fewer page faults).
  minify: true,
  keepNames: true,
  plugins: [lazyBuiltins],
  // The AWS SDK is loaded only for s3:// targets: left out of the bundle (1.5 MB that every
  // start would load), it is required from node_modules on first use.
  external: ["@aws-sdk/*", "@smithy/*"],
  // The bundle runs as a vm.Script (for its code cache), which has no dynamic import():
  // `import("@aws-sdk/client-s3")` becomes a lazy require().
  supported: { "dynamic-import": false },
  // Written already wrapped as the loader runs it (server/code-cache.ts): the loader then
  // compiles the text it read, not a second copy of 1.4 MB with the wrapper around it.
  banner: { js: `${BUNDLE_WRAPPER}${IMPORT_META_URL}` },
  footer: { js: "\n})" },
});
// ASCII only, so that the loader reads it as one-byte text: a single other character (esbuild
// escapes them in strings, not in regular expressions) makes V8 keep the whole bundle in
// two bytes a character, 2.8 MB of fresh memory at every start instead of 1.4 MB.
const text = readFileSync(bundle, "utf8");
const ascii = text.replace(/[^\0-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
if (ascii !== text) writeFileSync(bundle, ascii);
// The CPU worker (server/cpu/cpu-pool.ts, bundled, starts dist/server/cpu-worker.js beside the
// bundle): one self-contained ES module too, since the package ships no other module of dist/server.
const worker = path.join(server, "cpu-worker.js");
await build({
  entryPoints: [path.join(server, "cpu", "cpu-worker.js")],
  outfile: worker,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  legalComments: "none",
  // CommonJS dependencies bundled into an ES module still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __winkCreateRequire } from 'node:module'; const require = __winkCreateRequire(import.meta.url);" },
});
rmSync(`${worker}.map`, { force: true });
await build({ ...commonJs, entryPoints: [launcher], outfile: command, banner: { js: IMPORT_META_URL } });
chmodSync(command, 0o755);
// tsc's modules of the command, now in the bundle and the launcher: nothing runs them, the package ships neither.
for (const file of [compiled, `${compiled}.map`, launcher, `${launcher}.map`]) rmSync(file, { force: true });
const made = spawnSync(process.execPath, [command, "--version"], { env: { ...process.env, WINK_DEBUG_WRITE_CODE_CACHE: cache }, stdio: ["ignore", "ignore", "inherit"] });
if (made.status !== 0 || !existsSync(cache)) {
  console.error("build-cli: could not write the code cache (the CLI still works without it)");
}
