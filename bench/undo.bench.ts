/**
 * Overhead of per-tool-call undo: the same tool calls through the tool handlers, once on the
 * bare workspace (the peer) and once with undo (`invokeToolWithUndo`: an open snapshot per
 * mutating call, pre-images captured by the capturing filesystem, the snapshot closed with
 * post-images), on the in-memory and the host backend.
 *
 * Workload: a 400-file project (≈1.5 KB files, one 40 KB file) and 300 tool calls —
 * 45% edit_file, 15% write_file (new files), 10% write_file overwriting the 40 KB file, 5% rm
 * of a small directory, 25% read-only calls (read_file, grep, glob, ls). Reported per call:
 * median time with and without undo (and the ratio), the store's bytes on disk per mutating
 * call, and the bytes the calls changed (pre-image sizes) for scale. Variants: default
 * (post-images recorded, no fsync), without post-images, and durable (fsync).
 *
 * Run: node --import tsx bench/undo.bench.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { HostFilesystem } from "../shared/filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../shared/filesystem/memory/in-memory-filesystem.js";
import type { Filesystem } from "../shared/filesystem/protocol.js";
import { editFileTool, globTool, grepTool, lsTool, readFileTool, rmTool, writeFileTool } from "../shared/tools/index.js";
import type { ToolDefinition } from "../shared/tools/types.js";
import { invokeToolWithUndo } from "../shared/undo/capturing-filesystem.js";
import { UndoStore, type UndoStoreOptions } from "../shared/undo/undo-store.node.js";

const FILES = 400;
const CALLS = 300;
const RUNS = 5;

type Call = { tool: ToolDefinition; params: Record<string, unknown> };

function* random(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    yield (state >>> 0) / 2 ** 32;
  }
}

const fileText = (i: number): string => `// module ${i}\n${Array.from({ length: 40 }, (_, line) => `export const value_${i}_${line} = ${line * i};`).join("\n")}\n`;

async function seed(fs: Filesystem): Promise<void> {
  for (let i = 0; i < FILES; i++) await fs.write(`src/m${i % 20}/file${i}.ts`, fileText(i));
  await fs.write("data/big.json", "x".repeat(40 * 1024 - 1) + "\n");
  for (let d = 0; d < 20; d++) await fs.write(`tmp/d${d}/scratch.txt`, "scratch\n");
}

/** The same deterministic call list for every run. */
function workload(): Call[] {
  const rand = random(0x1234567);
  const pick = (n: number): number => Math.floor((rand.next().value as number) * n);
  const calls: Call[] = [];
  const edits = new Map<number, number>();
  let removed = 0;
  for (let c = 0; c < CALLS; c++) {
    const roll = rand.next().value as number;
    if (roll < 0.45) {
      const i = pick(FILES);
      const line = (edits.get(i) ?? 0) % 40;
      edits.set(i, line + 1);
      calls.push({ tool: editFileTool, params: { file_path: `src/m${i % 20}/file${i}.ts`, old_string: `value_${i}_${line} = `, new_string: `value_${i}_${line}_v2 = ` } });
    } else if (roll < 0.6) {
      calls.push({ tool: writeFileTool, params: { file_path: `gen/c${c}/out.ts`, content: fileText(10_000 + c) } });
    } else if (roll < 0.7) {
      calls.push({ tool: writeFileTool, params: { file_path: "data/big.json", content: `${String(c).padEnd(40 * 1024 - 1, "y")}\n`, mode: "overwrite" } });
    } else if (roll < 0.75 && removed < 20) {
      calls.push({ tool: rmTool, params: { path: `tmp/d${removed++}` } });
    } else {
      const kind = pick(4);
      const i = pick(FILES);
      if (kind === 0) calls.push({ tool: readFileTool, params: { file_path: `src/m${i % 20}/file${i}.ts` } });
      else if (kind === 1) calls.push({ tool: grepTool, params: { pattern: "value_7_3", path: "src/m7" } });
      else if (kind === 2) calls.push({ tool: globTool, params: { pattern: "src/m3/*.ts" } });
      else calls.push({ tool: lsTool, params: { path: "src" } });
    }
  }
  return calls;
}

interface Measurement {
  msPerCall: number;
  /** Process CPU time (user + system) per call: less distorted than wall time on a busy machine. */
  cpuMsPerCall: number;
  storeBytesPerMutation: number;
}

async function measure(backend: "memory" | "host", undo: Omit<UndoStoreOptions, "workspace"> | null, calls: readonly Call[]): Promise<Measurement> {
  const dirs: string[] = [];
  let fs: Filesystem;
  if (backend === "memory") fs = new InMemoryFilesystem();
  else {
    const root = await mkdtemp(join(tmpdir(), "wink-undo-bench-ws-"));
    dirs.push(root);
    fs = new HostFilesystem({ root, durable: false });
  }
  await seed(fs);
  let store: UndoStore | null = null;
  if (undo !== null) {
    const stateDir = await mkdtemp(join(tmpdir(), "wink-undo-bench-state-"));
    dirs.push(stateDir);
    store = await UndoStore.create({ ...undo, workspace: fs, stateDir });
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const [index, call] of calls.entries()) {
    const result =
      store === null ? await call.tool.handler(call.params, { filesystem: fs }) : await invokeToolWithUndo(call.tool, call.params, { store, sessionId: "bench", toolCallId: `tc_${index}` });
    if (!result.success && call.tool !== rmTool) throw new Error(`${call.tool.name} failed: ${result.message}`);
  }
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const mutations = calls.filter((call) => call.tool.mutates).length;
  const storeBytes = store === null ? 0 : await store.sessionBytes("bench");
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  return { msPerCall: elapsed / calls.length, cpuMsPerCall: (used.user + used.system) / 1000 / calls.length, storeBytesPerMutation: storeBytes / mutations };
}

/** Bytes of the pre-images the workload's mutating calls capture (what any undo must keep). */
async function preImageBytes(calls: readonly Call[]): Promise<number> {
  const fs = new InMemoryFilesystem();
  await seed(fs);
  let bytes = 0;
  for (const call of calls) {
    if (call.tool.mutates) {
      const path = String(call.params.file_path ?? call.params.path);
      if (await fs.exists(path)) {
        const stat = await fs.stat(path);
        if (stat.isFile) bytes += stat.sizeBytes;
        else for (const match of await fs.glob("**", { path })) bytes += (await fs.stat(match.path)).sizeBytes;
      }
    }
    await call.tool.handler(call.params, { filesystem: fs });
  }
  return bytes;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const calls = workload();
  const mutations = calls.filter((call) => call.tool.mutates).length;
  const payload = await preImageBytes(calls);
  console.log(`undo overhead: ${CALLS} tool calls (${mutations} mutating) on a ${FILES}-file project; median of ${RUNS} runs`);
  console.log(`pre-images the mutating calls destroy: ${(payload / mutations / 1024).toFixed(1)} KiB per mutating call on average\n`);
  const variants: { name: string; options: Omit<UndoStoreOptions, "workspace"> }[] = [
    { name: "undo (default)", options: {} },
    { name: "undo, no post-images", options: { recordPostImages: false } },
    { name: "undo, durable (fsync)", options: { durable: true } },
  ];
  console.log("backend | variant                | wall ms/call: bare → undo (ratio, +ms) | CPU ms/call: bare → undo (ratio, +ms) | store KiB per mutating call");
  const cell = (bare: number, undo: number): string => `${bare.toFixed(3)} → ${undo.toFixed(3)} (${(undo / bare).toFixed(2)}×, +${(undo - bare).toFixed(3)})`.padEnd(38);
  for (const backend of ["memory", "host"] as const) {
    await measure(backend, null, calls); // warm-up
    const bare: Measurement[] = [];
    for (let run = 0; run < RUNS; run++) bare.push(await measure(backend, null, calls));
    const bareWall = median(bare.map((m) => m.msPerCall));
    const bareCpu = median(bare.map((m) => m.cpuMsPerCall));
    for (const variant of variants) {
      const runs: Measurement[] = [];
      for (let run = 0; run < RUNS; run++) runs.push(await measure(backend, variant.options, calls));
      const wall = median(runs.map((m) => m.msPerCall));
      const cpu = median(runs.map((m) => m.cpuMsPerCall));
      const bytes = median(runs.map((m) => m.storeBytesPerMutation));
      console.log(`${backend.padEnd(7)} | ${variant.name.padEnd(22)} | ${cell(bareWall, wall)} | ${cell(bareCpu, cpu)} | ${(bytes / 1024).toFixed(1).padStart(6)}`);
    }
  }
}

await main();
