/**
 * Runs a CommonJS bundle through a V8 code cache. Compiling the 2.5 MB server bundle cost
 * ~50 ms of every start (Node 20 keeps no compile cache of its own); with the cache that
 * the build writes, V8 takes the bytecode of the bundle and of everything that ran while
 * the cache was made instead. V8 checks that a cache matches its version, flags and the
 * source, and compiles normally when it does not (another Node version, a changed bundle).
 */
import { isAscii } from "node:buffer";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";

export interface CodeCacheRun {
  /** A cache was found and V8 accepted it. */
  readonly cacheAccepted: boolean;
}

export interface CodeCacheOptions {
  /** Write the code cache of everything compiled so far to this file when the process exits (the build does). */
  writeCacheTo?: string | undefined;
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The text Node's CommonJS loader puts around a module, which a bundle may carry itself
 * (the CLI's does: `server/build-cli.mjs`). No newline after it, so that line numbers in
 * stack traces stay those of the file.
 */
export const BUNDLE_WRAPPER = "(function (exports, require, module, __filename, __dirname) {";

/** The bundle's text as the script to compile: as read when it carries the wrapper (after an optional `#!` line), else wrapped. */
function wrappedSource(bytes: Buffer): string {
  // ASCII read as Latin-1 is the same text, made straight into a one-byte string (UTF-8
  // decoding is slower, and any other character makes the whole string two bytes a character).
  const text = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const start = text.startsWith("#!") ? text.indexOf("\n") + 1 : 0;
  if (text.startsWith(BUNDLE_WRAPPER, start)) return text;
  return `${BUNDLE_WRAPPER}${text.replace(/^#!.*/, "")}\n})`;
}

/**
 * Loads `bundlePath` as the main CommonJS module would be (its own `require`, `module`,
 * `__filename`, `__dirname`) with the code cache at `cachePath` when there is a usable one.
 */
export function runWithCodeCache(bundlePath: string, cachePath: string, options: CodeCacheOptions = {}): CodeCacheRun {
  const source = wrappedSource(readFileSync(bundlePath));
  const cachedData = readIfPresent(cachePath);
  const script = new vm.Script(source, {
    filename: bundlePath,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const writeCacheTo = options.writeCacheTo;
  if (writeCacheTo !== undefined && writeCacheTo !== "") process.once("exit", () => writeFileSync(writeCacheTo, script.createCachedData()));
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  const module = { exports: {} as unknown, filename: bundlePath, id: ".", loaded: false };
  wrapper.call(module.exports, module.exports, createRequire(bundlePath), module, bundlePath, path.dirname(bundlePath));
  module.loaded = true;
  return { cacheAccepted: cachedData !== undefined && script.cachedDataRejected !== true };
}
