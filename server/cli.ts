#!/usr/bin/env node
/**
 * `wink-debug [DIR|FILE] [--host 127.0.0.1] [--port 8000] [--open|--no-open] [--recursive]`
 *
 * Serves a directory of WINK session files and debug bundles (or the directory of one
 * file) on loopback and prints the URL. Without an argument it serves the bundled example run. Problems with the
 * input are one line on stderr, never a stack trace:
 *   exit 0  stopped normally (Ctrl-C, SIGTERM)
 *   exit 2  bad arguments, or nothing to serve (missing path, empty directory, unreadable file)
 *   exit 3  the server could not start (port in use, address not available)
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import net from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_MEMORY_BYTES, buildApp } from "./app.js";
import { packageRoot, packageVersion } from "./package-root.js";

const MIB = 1024 * 1024;
/** The least `--memory` accepted: below it a 25 MB session line could never stay parsed. */
const MIN_MEMORY_MIB = 16;

const USAGE = `Usage: wink-debug [DIR|FILE] [options]

Serve WINK session snapshots (*.jsonl, *.json, with their .fs.zip workspaces) and WINK
debug bundles (*.zip with a debug_bundle/ root) in a local web viewer. DIR defaults to
the bundled example run; FILE may be a session file or a bundle.

Options:
  --host HOST      address to listen on (default 127.0.0.1; only loopback names are answered)
  --port PORT      port (default 8000, or the next free one; 0 picks any free port)
  --open           open the viewer in a browser, when one is available
  --no-open        do not open a browser (default)
  -r, --recursive  also serve subdirectories (e.g. an EvalLoop's {target}/{request_id}/*.zip)
  --memory MIB     memory for caches (parsed session lines, archive indexes, file
                   contents), in MiB (default ${DEFAULT_MEMORY_BYTES / MIB}); the process uses
                   about this plus 70 MiB, plus twice the largest line while it parses
  -h, --help       show this help
  -v, --version    print the version

Command:
  wink-debug bundle DIR|FILE -o run.html
                   write one self-contained HTML file (viewer + data) that opens offline
`;

class UsageError extends Error {}

interface CliOptions {
  target: string;
  host: string;
  port: number;
  portGiven: boolean;
  open: boolean;
  recursive: boolean;
  memoryBytes: number;
}

function parseCli(argv: string[]): CliOptions | "help" | "version" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        open: { type: "boolean" },
        "no-open": { type: "boolean" },
        recursive: { type: "boolean", short: "r" },
        memory: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (values.version) return "version";
  if (positionals.length > 1) throw new UsageError(`expected one DIR or FILE, got ${positionals.length}: ${positionals.join(" ")}`);
  const portText = values.port ?? "8000";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got ${portText}`);
  const memoryText = values.memory ?? String(DEFAULT_MEMORY_BYTES / MIB);
  if (!/^\d{1,7}$/.test(memoryText) || Number(memoryText) < MIN_MEMORY_MIB) throw new UsageError(`--memory must be a whole number of MiB, at least ${MIN_MEMORY_MIB}, got ${memoryText}`);
  return {
    target: positionals[0] ?? path.join(packageRoot(), "examples", "snapshots"),
    host: values.host ?? "127.0.0.1",
    port: Number(portText),
    portGiven: values.port !== undefined,
    open: values.open === true && values["no-open"] !== true,
    recursive: values.recursive === true,
    memoryBytes: Number(memoryText) * MIB,
  };
}

/** True when `port` can be bound on `host` right now. */
function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

function urlOf(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}/`;
}

/** Opens `url` with the platform's opener when there is one; never fails the server. */
function openBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "cmd" : "xdg-open";
  const args = process.platform === "win32" ? ["/c", "start", "", url] : [url];
  const onPath = (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (!onPath || (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)) {
    process.stdout.write("  (no browser available here: open the URL yourself)\n");
    return;
  }
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", () => process.stdout.write("  (could not open a browser: open the URL yourself)\n"));
  child.unref();
}

function fail(code: number, message: string): never {
  process.stderr.write(`wink-debug: error: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  // `wink-debug bundle …`: the self-contained HTML writer (server/bundle.ts).
  if (process.argv[2] === "bundle") {
    const { BundleError, bundleMain } = await import("./bundle.js");
    try {
      process.exitCode = await bundleMain(process.argv.slice(3));
    } catch (error) {
      if (error instanceof BundleError) fail(2, error.message);
      throw error;
    }
    return;
  }
  let options: CliOptions | "help" | "version";
  try {
    options = parseCli(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) fail(2, `${error.message}\n${USAGE}`);
    throw error;
  }
  if (options === "help") {
    process.stdout.write(USAGE);
    return;
  }
  if (options === "version") {
    process.stdout.write(`wink-debug ${packageVersion()}\n`);
    return;
  }

  const interactive = process.stderr.isTTY === true;
  const started = Date.now();
  let built;
  try {
    built = await buildApp({
      path: options.target,
      recursive: options.recursive,
      memoryBytes: options.memoryBytes,
      bindHost: options.host,
      onIndexProgress: (done, total) => {
        if (interactive && total > 1) process.stderr.write(`\rIndexing session files: ${done}/${total}${done === total ? "\n" : ""}`);
      },
    });
  } catch (error) {
    fail(2, error instanceof Error ? error.message : String(error));
  }
  const { app, state } = built;

  let port = options.port;
  if (port !== 0 && !(await portIsFree(options.host, port))) {
    if (options.portGiven) {
      await app.close();
      fail(3, `port ${port} on ${options.host} is already in use (choose another with --port, or --port 0 for any free port)`);
    }
    const original = port;
    for (port = original + 1; port < original + 50 && !(await portIsFree(options.host, port)); port++);
    if (port >= original + 50) {
      await app.close();
      fail(3, `ports ${original}–${original + 49} on ${options.host} are all in use (choose one with --port)`);
    }
    process.stdout.write(`Port ${original} is in use; using ${port} instead.\n`);
  }
  try {
    await app.listen({ host: options.host, port });
  } catch (error) {
    await app.close().catch(() => undefined);
    fail(3, `cannot listen on ${options.host}:${port}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const address = app.server.address();
  const actualPort = typeof address === "object" && address !== null ? address.port : port;
  const url = urlOf(options.host, actualPort);
  const files = state.directory.files();
  const bundles = files.filter((record) => record.kind === "bundle").length;
  const sessions = files.length - bundles;
  const counted = [
    ...(sessions > 0 || bundles === 0 ? [`${sessions} session file${sessions === 1 ? "" : "s"}`] : []),
    ...(bundles > 0 ? [`${bundles} debug bundle${bundles === 1 ? "" : "s"}`] : []),
  ].join(", ");
  process.stdout.write(`wink-debug ${packageVersion()} serving ${state.displayRoot} (${counted}${options.recursive ? ", recursive" : ""})\n`);
  process.stdout.write(`  ${url}   (ready in ${Date.now() - started} ms; Ctrl-C to stop)\n`);
  if (!["127.0.0.1", "localhost", "::1"].includes(options.host)) {
    process.stdout.write(`  note: listening on ${options.host}; requests are still answered only for loopback names and ${options.host}\n`);
  }
  if (options.open) openBrowser(url);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write("wink-debug: forced exit\n");
      process.exit(130);
    }
    stopping = true;
    process.stdout.write(`\nwink-debug: ${signal} received, shutting down\n`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => fail(1, `shutdown failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => fail(1, `unexpected failure: ${error instanceof Error ? error.message : String(error)}`));
