#!/usr/bin/env node
/**
 * The `wink-debug` command as built: `server/build-cli.mjs` installs this file as
 * `dist/server/cli.cjs` (bundled as CommonJS with `code-cache.ts`), next to the bundled CLI (`cli.bundle.cjs`) and its code cache
 * (`cli.bundle.cache`), which it runs (see `code-cache.ts`). From the TypeScript sources,
 * `server/cli.ts` is the command itself.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runWithCodeCache } from "./code-cache.js";

const directory = path.dirname(fileURLToPath(import.meta.url));
// The build sets WINK_DEBUG_WRITE_CODE_CACHE to make the cache, in a run of `--version`.
runWithCodeCache(path.join(directory, "cli.bundle.cjs"), path.join(directory, "cli.bundle.cache"), { writeCacheTo: process.env.WINK_DEBUG_WRITE_CODE_CACHE });
