/**
 * Per-operation latency of the container workspaces on a 1,000-file tree, next to their
 * peers measured in the same run:
 *
 *   host         plain Node fs on a host temp directory (the floor)
 *   overlay      PodmanSandbox.filesystem: the host backend over the bind-mounted overlay
 *   exec         PodmanFilesystem, one long-lived `podman exec` session (default transport)
 *   exec/call    PodmanFilesystem, one `podman exec` per operation (fallback transport)
 *   podman cat   a bare `podman exec <id> cat <file>` per read (what any exec-based read costs)
 *
 * Operations: read one file, overwrite one file, list a 100-entry directory, glob the whole
 * tree, grep a pattern over all 1,000 files. Reported: median and p95 per operation (ms),
 * and the median's ratio to plain host I/O and to a bare `podman exec cat`.
 *
 * Snapshots of the same tree: the exec backend's native snapshot (a `cp -a` inside the
 * container, driven through its session), restore and diff (after 10 edits), next to a bare
 * `podman exec <id> cp -a` of the tree (the floor of any exec-driven copy), the archive round
 * trip the exec backend had before (exportArchive/importArchive through the same session) and
 * the overlay sandbox's native snapshots (host copy/reflink strategy), all in the same run.
 *
 * Run: node --import tsx bench/podman.bench.ts [snapshots]   ("snapshots": that section only,
 * the tree seeded through one archive)
 */
import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PodmanContainer } from "../shared/filesystem/podman/container.js";
import { PodmanFilesystem } from "../shared/filesystem/podman/podman-filesystem.js";
import { PodmanSandbox } from "../shared/workspace/podman-sandbox.js";
import type { Filesystem } from "../shared/filesystem/protocol.js";
import type { FilesystemSnapshot } from "../shared/filesystem/snapshot-contract.js";

const DIRS = 10;
const FILES_PER_DIR = 100;
const PATTERN = "needle-\\d+";

function path(i: number): string {
  return `d${Math.floor(i / FILES_PER_DIR)}/f${i % FILES_PER_DIR}.txt`;
}

function content(i: number, version = 0): string {
  const lines = Array.from({ length: 20 }, (_, line) => `file ${i} line ${line} version ${version} lorem ipsum dolor sit amet`);
  if (i % 10 === 0) lines[7] = `needle-${i} is here`;
  return `${lines.join("\n")}\n`;
}

interface Stats {
  median: number;
  p95: number;
  runs: number;
}

async function measure(runs: number, op: (i: number) => Promise<unknown>): Promise<Stats> {
  await op(0); // warm-up (starts sessions, fills caches)
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await op(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)] as number, p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] as number, runs };
}

async function seed(fs: Filesystem): Promise<void> {
  for (let i = 0; i < DIRS * FILES_PER_DIR; i++) await fs.write(path(i), content(i));
}

type Row = Record<string, Stats | null>;

async function hostBaseline(): Promise<Row> {
  const root = await mkdtemp(join(tmpdir(), "wink-bench-host-"));
  try {
    for (let i = 0; i < DIRS * FILES_PER_DIR; i++) {
      await mkdir(join(root, `d${Math.floor(i / FILES_PER_DIR)}`), { recursive: true });
      await writeFile(join(root, path(i)), content(i));
    }
    const regex = new RegExp(PATTERN);
    const walk = async (): Promise<string[]> => {
      const files: string[] = [];
      for (const dir of await readdir(root)) for (const name of await readdir(join(root, dir))) files.push(`${dir}/${name}`);
      return files;
    };
    return {
      read: await measure(200, (i) => readFile(join(root, path((i * 37) % 1000)), "utf8")),
      write: await measure(200, (i) => writeFile(join(root, path((i * 37) % 1000)), content(i, 1))),
      list: await measure(50, () => readdir(join(root, "d3"), { withFileTypes: true })),
      glob: await measure(20, () => walk()),
      grep: await measure(10, async () => {
        let hits = 0;
        for (const file of await walk()) for (const line of (await readFile(join(root, file), "utf8")).split("\n")) if (regex.test(line)) hits++;
        return hits;
      }),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function protocolRow(fs: Filesystem, runs: { read: number; write: number; list: number; glob: number; grep: number }): Promise<Row> {
  return {
    read: await measure(runs.read, (i) => fs.read(path((i * 37) % 1000))),
    write: await measure(runs.write, (i) => fs.write(path((i * 37) % 1000), content(i, 1))),
    list: await measure(runs.list, () => fs.list("d3")),
    glob: runs.glob === 0 ? null : await measure(runs.glob, () => fs.glob("**/*.txt")),
    grep: runs.grep === 0 ? null : await measure(runs.grep, async () => {
      // A generous budget: on a loaded machine the exec grep can outlast the default 5 s.
      const matches = await fs.grep(PATTERN, { maxMatches: 10_000, timeoutMs: 120_000 });
      if (matches.length !== 100) throw new Error(`grep found ${matches.length} matches, expected 100`);
      return matches;
    }),
  };
}

/** Native snapshot, restore and diff of `fs`, default retention on (as a caller gets it). */
async function snapshotRow(fs: Filesystem, snapshots: { snapshot(): Promise<FilesystemSnapshot>; restore(s: FilesystemSnapshot): Promise<void>; diff(s: FilesystemSnapshot): Promise<unknown> }): Promise<Row> {
  const base = await snapshots.snapshot();
  for (let i = 0; i < 10; i++) await fs.write(path((i * 97) % 1000), content(i, 2));
  const diff = await measure(10, () => snapshots.diff(base));
  const restore = await measure(10, () => snapshots.restore(base));
  const snapshot = await measure(10, () => snapshots.snapshot());
  return { snapshot, restore, diff };
}

function format(stats: Stats | null | undefined): string {
  return stats ? `${stats.median.toFixed(2)} (p95 ${stats.p95.toFixed(2)})` : "—";
}

/** Exec native snapshots next to their peers (the tree is already in both workspaces). */
async function snapshotSection(sandbox: PodmanSandbox, container: PodmanContainer, exec: PodmanFilesystem): Promise<void> {
  const snapshotRows: Record<string, Row> = {};
  snapshotRows.exec = await snapshotRow(exec, exec);
  snapshotRows.overlay = await snapshotRow(sandbox.filesystem, sandbox);
  snapshotRows["podman cp -a"] = { snapshot: await measure(10, () => container.exec(["/bin/sh", "-c", "rm -rf /tmp/peer && cp -a /workspace/. /tmp/peer"])) };
  const archiveDir = await mkdtemp(join(tmpdir(), "wink-bench-archive-"));
  try {
    const archive = join(archiveDir, "ws.fs.zip");
    snapshotRows["exec archive"] = {
      snapshot: await measure(10, () => exec.exportArchive(archive)),
      restore: await measure(10, () => exec.importArchive(archive)),
    };
  } finally {
    await rm(archiveDir, { recursive: true, force: true });
  }
  console.log(`\nSnapshots of the ${DIRS * FILES_PER_DIR}-file tree; median (p95) ms; diff after 10 edits`);
  console.log(`${"".padEnd(14)} ${["snapshot", "restore", "diff"].map((h) => h.padEnd(22)).join("")}`);
  for (const [name, row] of Object.entries(snapshotRows)) {
    console.log(`${name.padEnd(14)} ${["snapshot", "restore", "diff"].map((op) => format(row[op]).padEnd(22)).join("")}`);
  }
  const ratio = (a: Stats | null | undefined, b: Stats | null | undefined): string => ((a?.median ?? NaN) / (b?.median ?? NaN)).toFixed(2);
  console.log(
    `exec native snapshot ${ratio(snapshotRows.exec?.snapshot, snapshotRows["podman cp -a"]?.snapshot)}× a bare podman exec cp -a, ` +
      `${ratio(snapshotRows.exec?.snapshot, snapshotRows["exec archive"]?.snapshot)}× an archive export; restore ${ratio(snapshotRows.exec?.restore, snapshotRows["exec archive"]?.restore)}× an archive import`,
  );
}

/** The tree into both workspaces through one archive (fast; the protocol section seeds file by file, as it measures). */
async function seedByArchive(targets: readonly Filesystem[]): Promise<void> {
  const { InMemoryFilesystem } = await import("../shared/filesystem/memory/in-memory-filesystem.js");
  const source = new InMemoryFilesystem();
  await seed(source);
  const dir = await mkdtemp(join(tmpdir(), "wink-bench-seed-"));
  try {
    await source.exportArchive(join(dir, "seed.fs.zip"));
    for (const target of targets) await target.importArchive(join(dir, "seed.fs.zip"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const snapshotsOnly = process.argv[2] === "snapshots";
  const sandbox = await PodmanSandbox.create({ filesystem: { durable: false } });
  const container = await PodmanContainer.create({ workspace: { kind: "tmpfs", sizeBytes: 256 * 1024 * 1024 } });
  const exec = new PodmanFilesystem({ container });
  const perCall = new PodmanFilesystem({ container, transport: "per-call" });
  try {
    if (snapshotsOnly) {
      await seedByArchive([sandbox.filesystem, exec]);
    } else {
      await protocolSection(sandbox, container, exec, perCall);
    }
    await snapshotSection(sandbox, container, exec);
  } finally {
    await exec.close();
    await perCall.close();
    await container.remove();
    await sandbox.close();
  }
}

/** Per-operation latency of every path (seeds both workspaces file by file). */
async function protocolSection(sandbox: PodmanSandbox, container: PodmanContainer, exec: PodmanFilesystem, perCall: PodmanFilesystem): Promise<void> {
  const rows: Record<string, Row> = {};
  const host = await hostBaseline();
  rows.host = host;
  await seed(sandbox.filesystem);
  rows.overlay = await protocolRow(sandbox.filesystem, { read: 200, write: 200, list: 50, glob: 20, grep: 10 });
  // The overlay's grep as the container itself would run it, for reference.
  await sandbox.exec(["true"]);

  const seedStarted = performance.now();
  await seed(exec);
  const seedMs = performance.now() - seedStarted;
  const coldFs = new PodmanFilesystem({ container });
  const coldStarted = performance.now();
  await coldFs.stat("d0");
  const coldMs = performance.now() - coldStarted;
  await coldFs.close();
  rows.exec = await protocolRow(exec, { read: 200, write: 200, list: 50, glob: 20, grep: 5 });
  rows["exec/call"] = await protocolRow(perCall, { read: 10, write: 10, list: 10, glob: 3, grep: 0 });
  rows["podman cat"] = { read: await measure(20, (i) => container.exec(["cat", `/workspace/${path((i * 37) % 1000)}`])) };

  const hostRead = host.read?.median ?? NaN;
  const catRead = rows["podman cat"].read?.median ?? NaN;
  console.log(`Container workspaces, ${DIRS * FILES_PER_DIR} files of ~1.2 KB; median (p95) ms per operation`);
  console.log(`${"".padEnd(12)} ${["read", "write", "list(100)", "glob(**)", "grep(1000 files)"].map((h) => h.padEnd(22)).join("")}`);
  for (const [name, row] of Object.entries(rows)) {
    console.log(`${name.padEnd(12)} ${["read", "write", "list", "glob", "grep"].map((op) => format(row[op]).padEnd(22)).join("")}`);
  }
  console.log("\nRatios of the median to plain host I/O (×host) and to a bare `podman exec cat` read (×cat):");
  for (const [name, row] of Object.entries(rows)) {
    const parts = ["read", "write", "list", "glob", "grep"]
      .filter((op) => row[op])
      .map((op) => `${op} ${((row[op]?.median ?? NaN) / (host[op]?.median ?? NaN)).toFixed(1)}×host`);
    console.log(`${name.padEnd(12)} ${parts.join(", ")}; read = ${((row.read?.median ?? NaN) / catRead).toFixed(3)}×cat`);
  }
  console.log(`\nexec session: first request of a new filesystem (session start + recovery check) ${coldMs.toFixed(0)} ms; seeding 1,000 files through it ${seedMs.toFixed(0)} ms`);
  console.log(`host read ${hostRead.toFixed(3)} ms vs podman exec cat ${catRead.toFixed(1)} ms`);
}

await main();
