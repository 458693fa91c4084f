/**
 * Starts the real `wink-debug` CLI on a free loopback port (`--port 0`) and stops it.
 * Uses the built CLI (`dist/server/cli.cjs`, what `npm install` builds), or the TypeScript
 * sources through tsx when there is no build.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The command that runs the CLI with `args`. */
export function cliCommand(args: readonly string[]): { command: string; args: string[] } {
  const built = path.join(REPO, "dist", "server", "cli.cjs");
  if (existsSync(built)) return { command: process.execPath, args: [built, ...args] };
  return { command: process.execPath, args: [path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), path.join(REPO, "server", "cli.ts"), ...args] };
}

export interface RunningServer {
  readonly url: string;
  readonly origin: string;
  stop(): Promise<void>;
}

export async function startServer(target: string, extra: readonly string[] = [], startTimeoutMs = 20_000): Promise<RunningServer> {
  // No run index kept between starts (it would go to ~/.cache): a spec that wants one says --cache-dir.
  const { command, args } = cliCommand([target, "--port", "0", "--no-open", ...(extra.includes("--cache-dir") ? [] : ["--no-cache"]), ...extra]);
  const child: ChildProcess = spawn(command, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "production" } });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wink-debug did not start in ${startTimeoutMs / 1000} s:\n${output}`)), startTimeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // The viewer's URL, on its own indented line (a remote store's URL is printed before it).
      const match = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/)/m.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`wink-debug exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    origin: url.replace(/\/$/, ""),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}
