/**
 * Starting and stopping real servers for tests and benchmarks: free loopback ports, a temp
 * dir per server group, bounded waits with clear errors (with the tail of the logs), and
 * cleanup that happens even when the test process dies — a watchdog shell kills the
 * recorded daemons and removes the temp dir once its parent is gone.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** A port nothing listens on right now (the kernel's choice, so two test files never collide). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Throws a clear error unless every command in `names` is installed. */
export function requireCommands(names: readonly string[], hint: string): void {
  const dirs = (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/sbin"]);
  const missing = names.filter((name) => !dirs.some((dir) => existsSync(path.join(dir, name))));
  if (missing.length > 0) throw new Error(`Cannot start the test server: ${missing.join(", ")} not installed (${hint}; npm test installs them via scripts/ensure-system-deps.sh)`);
}

/** A group of daemons sharing a temp dir, stopped together. */
export class DaemonGroup {
  readonly dir: string;
  private readonly children: ChildProcess[] = [];
  private readonly pidFile: string;
  private readonly logNames: string[] = [];
  private stopped = false;
  private readonly watchdog: ChildProcess;
  private readonly onExit = (): void => this.killNow();

  constructor(readonly name: string) {
    this.dir = mkdtempSync(path.join(tmpdir(), `wink-${name}-`));
    this.pidFile = path.join(this.dir, "pids");
    writeFileSync(this.pidFile, "");
    // The watchdog outlives a killed test process and cleans up after it.
    // It kills only processes whose command line names this group's dir, so a recycled pid is safe.
    const script = [
      'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
      'for p in $(cat "$2" 2>/dev/null); do tr "\\0" " " <"/proc/$p/cmdline" 2>/dev/null | grep -qF "$3" && kill -9 "$p"; done',
      'sleep 1; rm -rf "$3"',
    ].join("; ");
    this.watchdog = spawn("sh", ["-c", script, "watchdog", String(process.pid), this.pidFile, this.dir], { detached: true, stdio: "ignore" });
    this.watchdog.unref();
    process.once("exit", this.onExit);
  }

  /** Starts a daemon whose output goes to `<dir>/log/<logName>` (never to the test's stdout: pipes can hang). */
  spawn(command: string, args: readonly string[], logName: string): ChildProcess {
    const logPath = this.logPath(logName);
    this.logNames.push(logName);
    const log = openSync(logPath, "a");
    const child = spawn(command, args, { stdio: ["ignore", log, log], cwd: this.dir });
    closeSync(log);
    if (child.pid !== undefined) appendFileSync(this.pidFile, `${child.pid}\n`);
    this.children.push(child);
    return child;
  }

  logPath(name: string): string {
    return path.join(this.dir, `${name}.log`);
  }

  /** Runs a setup command to completion (bounded), failing with its output. */
  async run(command: string, args: readonly string[], timeoutMs = 60_000): Promise<string> {
    try {
      const { stdout } = await execFileAsync(command, args, { cwd: this.dir, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
      return stdout;
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      const output = `${failed.stderr ?? ""}${failed.stdout ?? ""}`.trim();
      throw new Error(`${this.name}: ${command} ${args.join(" ")} failed: ${failed.message.split("\n")[0]}\n${output.slice(-2000)}`, { cause: error });
    }
  }

  /** Polls `ready` until it resolves true; fails after `timeoutMs` or when a daemon exits, with the logs' tails. */
  async waitFor(what: string, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const dead = this.children.find((child) => child.exitCode !== null || child.signalCode !== null);
      if (dead !== undefined) throw new Error(`${this.name}: ${dead.spawnfile} exited (${dead.exitCode ?? dead.signalCode}) while waiting for ${what}\n${this.logTails()}`);
      if (await ready().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`${this.name}: ${what} not ready after ${timeoutMs} ms\n${this.logTails()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  logTails(): string {
    const parts: string[] = [];
    for (const name of this.logNames) {
      try {
        const text = readFileSync(path.join(this.dir, `${name}.log`), "utf8");
        parts.push(`--- ${name}.log (tail)\n${text.split("\n").slice(-15).join("\n")}`);
      } catch {
        // no log written
      }
    }
    return parts.join("\n");
  }

  /** Kills every daemon (SIGKILL: the data is throwaway), waits for them, removes the temp dir. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    process.removeListener("exit", this.onExit);
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGKILL");
          }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
    this.watchdog.kill("SIGKILL");
  }

  private killNow(): void {
    for (const child of this.children) child.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
    this.watchdog.kill("SIGKILL");
  }
}
