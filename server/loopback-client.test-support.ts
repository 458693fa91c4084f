/**
 * A real HTTP client in its own process, for tests that must not measure their own event
 * loop: the server under test runs in the test process (so the test can look inside it),
 * and the client — Node's fetch over loopback — runs a small program given as source and
 * reports what it saw as one line of JSON.
 */
import { spawn } from "node:child_process";

/** A client process: what it reports, and a way to tell it to stop. */
export interface RunningClient<T> {
  readonly result: Promise<T>;
  /** Ends the client's stdin: its `stopped` flag turns true. */
  stop(): void;
}

/**
 * Runs `program` (an ES module body; `args` is its array of arguments, `sleep(ms)`,
 * `report(value)` and a `stopped()` function — true once the test called `stop()` — are
 * defined) in a child process; `result` resolves with what it reported. Killed after
 * `timeoutMs`.
 */
export function startClient<T>(program: string, args: readonly string[], timeoutMs = 120_000): RunningClient<T> {
  const prelude = `const args = ${JSON.stringify(args)};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const report = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
let stopFlag = false;
process.stdin.on("data", () => {}).on("end", () => { stopFlag = true; });
const stopped = () => stopFlag;
`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", prelude + program], { stdio: ["pipe", "pipe", "pipe"] });
  const result = new Promise<T>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split("\n").pop() ?? "";
      if (code !== 0 || line === "") reject(new Error(`client exited with ${code ?? signal}: ${stderr.slice(0, 2000)}`));
      else resolve(JSON.parse(line) as T);
    });
  });
  return { result, stop: () => child.stdin.end() };
}

/** `startClient` for a program that ends by itself. */
export function runClient<T>(program: string, args: readonly string[], timeoutMs = 120_000): Promise<T> {
  const client = startClient<T>(program, args, timeoutMs);
  client.stop();
  return client.result;
}

export interface CurlResult {
  readonly status: number;
  readonly bytes: number;
  readonly seconds: number;
  /** curl's exit code: 0, or why the transfer failed (18: it ended short of its content-length; 28: timed out). */
  readonly exitCode: number;
}

/** GET `url` with curl in its own process (the body is thrown away); `extraArgs` such as `--limit-rate 10M`. */
export function curlGet(url: string, options: { timeoutSeconds?: number; extraArgs?: readonly string[] } = {}): Promise<CurlResult> {
  return new Promise((resolve, reject) => {
    const args = ["-s", "-o", "/dev/null", "--max-time", String(options.timeoutSeconds ?? 120), ...(options.extraArgs ?? []), "-w", "%{http_code} %{size_download} %{time_total}", url];
    const child = spawn("curl", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("error", reject);
    // "close", not "exit": stdout may still hold curl's summary when the process has exited.
    child.on("close", (code) => {
      const [status, bytes, seconds] = out.trim().split(" ").map(Number);
      resolve({ status: status ?? 0, bytes: bytes ?? 0, seconds: seconds ?? 0, exitCode: code ?? -1 });
    });
  });
}

/** A client program (`startClient`): GET `args[0]` every `everyMs` until stopped; reports how many answers came and the longest wait. */
export function pollProbe(everyMs: number): string {
  return `
const [quick] = args;
const latencies = [];
while (!stopped()) {
  const at = performance.now();
  const response = await fetch(quick);
  await response.text();
  if (response.status !== 200) throw new Error("quick request failed: " + response.status);
  latencies.push(performance.now() - at);
  await sleep(${everyMs});
}
report({ quickCount: latencies.length, quickMaxMs: Math.max(0, ...latencies) });
`;
}

/** {@link pollProbe} every 20 ms. */
export const POLL_PROBE = pollProbe(20);

export interface PollProbeResult {
  quickCount: number;
  quickMaxMs: number;
}
