/**
 * Crash safety of the undo store, with real crashes: a child process captures tool calls as
 * fast as it can and is killed with SIGKILL at random moments, five times on the same state
 * directory. A fresh store must then load without problems, reference only complete bodies,
 * leave no temporary files, and restore every snapshot.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { parseUndoManifest, undoManifestBodies } from "./manifest.js";
import { UndoStore } from "./undo-store.node.js";

const CHILD = fileURLToPath(new URL("./crash-child.test-support.ts", import.meta.url));
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function runAndKill(args: readonly string[], delayMs: number): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    child.on("exit", () => reject(new Error(`crash child exited before it was ready: ${stderr}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
}

async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await allFiles(path)));
    else out.push(path);
  }
  return out;
}

it("never exposes half a file: a rewrite killed at any moment leaves the old or the new bytes", async () => {
  const dir = await mkdtemp(join(tmpdir(), "wink-undo-crash-file-"));
  temps.push(dir);
  const path = join(dir, "big.bin");
  const size = 24 * 1024 * 1024; // big enough that most kills land inside a write
  for (let round = 0; round < 5; round++) {
    await runAndKill(["--atomic-file", path, String(size)], 120 + round * 37);
    const bytes = await readFile(path).catch(() => null);
    if (bytes === null) continue; // killed before the first rename
    expect(bytes.length).toBe(size);
    expect(bytes.every((byte) => byte === bytes[0])).toBe(true);
  }
}, 60_000);

it("reloads consistently after being killed mid-write, again and again", async () => {
  const workspace = await mkdtemp(join(tmpdir(), "wink-undo-crash-ws-"));
  const stateDir = await mkdtemp(join(tmpdir(), "wink-undo-crash-state-"));
  temps.push(workspace, stateDir);
  for (let round = 0; round < 5; round++) await runAndKill([workspace, stateDir, String(round + 7)], 150 + round * 90);

  const fs = new HostFilesystem({ root: workspace, durable: false });
  const store = await UndoStore.create({ workspace: fs, stateDir });
  const infos = await store.list("crash");
  expect(infos.length).toBeGreaterThan(3);
  expect(store.problems).toEqual([]);

  // Loading cleaned up: no temporary files, no snapshot directory without its manifest,
  // and exactly the bodies that manifests reference, each matching its hash.
  const sessionDir = store.sessionDir("crash");
  const files = await allFiles(sessionDir);
  expect(files.filter((path) => path.includes(".tmp-"))).toEqual([]);
  const referenced = new Set<string>();
  let manifestBytes = 0;
  for (const name of await readdir(sessionDir)) {
    if (name === "bodies") continue;
    const text = await readFile(join(sessionDir, name, "manifest.json"), "utf8");
    manifestBytes += Buffer.byteLength(text);
    for (const hash of undoManifestBodies(parseUndoManifest(text))) referenced.add(hash);
  }
  const bodies = await readdir(join(sessionDir, "bodies"));
  expect(new Set(bodies)).toEqual(referenced);
  let bodyBytes = 0;
  for (const hash of bodies) {
    const bytes = await readFile(join(sessionDir, "bodies", hash));
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(hash);
    bodyBytes += (await stat(join(sessionDir, "bodies", hash))).size;
  }
  expect(await store.sessionBytes("crash")).toBe(bodyBytes + manifestBytes);

  // Every snapshot that survived restores (latest first).
  for (const info of [...infos].reverse()) {
    if (info.kind !== "tool_call") continue;
    await expect(store.restore("crash", info.scopeId)).resolves.toMatchObject({ scopeId: info.scopeId });
  }
}, 60_000);
