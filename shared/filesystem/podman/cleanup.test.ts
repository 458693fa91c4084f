/**
 * Nothing outlives the process that made it: containers and overlays are removed on normal
 * exit, on an uncaught error and on SIGINT/SIGTERM/SIGHUP; after SIGKILL the next process
 * reaps them. Each case runs a real child process that creates a sandbox and a container.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { reapOrphanedContainers } from "./cleanup.js";
import { defaultPodman } from "./podman-cli.js";
import { reapOrphanedSandboxes } from "../../workspace/podman-sandbox.js";

const CHILD = fileURLToPath(new URL("./cleanup-child.test-support.ts", import.meta.url));
const roots: string[] = [];

interface Made {
  readonly directory: string;
  readonly containers: readonly string[];
}

async function existingContainers(names: readonly string[]): Promise<string[]> {
  const listed = await defaultPodman().run(["ps", "--all", "--format", "{{.Names}}"]);
  const all = new Set(listed.stdout.toString().split("\n"));
  return names.filter((name) => all.has(name));
}

/** Start the child, wait for its JSON line, then end it with `signal` (if any); resolves when it has exited. */
async function runChild(mode: "exit" | "throw" | "wait", signal?: NodeJS.Signals): Promise<{ made: Made; overlayRoot: string; code: number | null; signal: NodeJS.Signals | null }> {
  const overlayRoot = await mkdtemp(join(tmpdir(), "wink-cleanup-"));
  roots.push(overlayRoot);
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, overlayRoot, mode], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, sig) => resolve({ code, signal: sig })));
  const made = await new Promise<Made>((resolve, reject) => {
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
      const line = stdout.split("\n")[0];
      if (stdout.includes("\n") && line) resolve(JSON.parse(line) as Made);
    });
    void exited.then(() => reject(new Error(`child exited before reporting: ${stderr}`)));
  });
  if (signal) child.kill(signal);
  return { made, overlayRoot, ...(await exited) };
}

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe("cleanup when the process ends", { timeout: 120_000 }, () => {
  it.each([
    ["exits without closing", "exit", undefined],
    ["dies of an uncaught error", "throw", undefined],
    ["gets SIGTERM", "wait", "SIGTERM"],
    ["gets SIGINT", "wait", "SIGINT"],
    ["gets SIGHUP", "wait", "SIGHUP"],
  ] as const)("removes containers and overlays when the process %s", async (_label, mode, signal) => {
    const { made, overlayRoot, code, signal: endedBy } = await runChild(mode, signal);
    expect(made.containers).toHaveLength(2);
    if (signal) expect(endedBy).toBe(signal);
    else expect(code).toBe(mode === "exit" ? 0 : 1);
    expect(await existingContainers(made.containers)).toEqual([]);
    expect(await readdir(overlayRoot)).toEqual([]);
  });

  it("reaps what a SIGKILLed process left behind", async () => {
    const { made, overlayRoot, signal } = await runChild("wait", "SIGKILL");
    expect(signal).toBe("SIGKILL");
    expect(await existingContainers(made.containers)).toEqual(made.containers);
    expect(await readdir(overlayRoot)).toHaveLength(1);
    const reaped = await reapOrphanedContainers(defaultPodman());
    expect(reaped.length).toBeGreaterThanOrEqual(2);
    expect(await existingContainers(made.containers)).toEqual([]);
    expect(await reapOrphanedSandboxes(overlayRoot)).toEqual([made.directory]);
    expect(await readdir(overlayRoot)).toEqual([]);
  });
});
