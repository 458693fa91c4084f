/**
 * Generated inputs for the server benchmarks, kept in `bench/.work/` (git-ignored) and
 * reused between runs: 10,000-file / 100 MB archives (one, and a copy differing in 50
 * files), a 25 MB session file, and a 1 GB directory of sessions and archives.
 */
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { existsSync } from "node:fs";
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeArchive } from "../shared/archive/index.js";
import type { ArchiveSourceEntry } from "../shared/archive/index.js";
import { dumpsPython } from "../shared/session/index.js";

export const WORK = path.resolve(import.meta.dirname, ".work", "server");

/** Deterministic pseudo-random text: source-like lines, compressible about 3:1. */
export function fileText(index: number, bytes: number, variant = 0): string {
  let seed = (index * 2654435761 + variant * 97) >>> 0;
  const next = (): number => (seed = (seed * 1664525 + 1013904223) >>> 0);
  const words = ["const", "value", "return", "function", "index", "result", "await", "import", "export", "string", "number", "filter", "config", "session", "snapshot"];
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const line = `${"  ".repeat(next() % 4)}${words[next() % words.length]} ${words[next() % words.length]}_${next() % 10_000} = ${next() % 1_000_000}; // ${variant}\n`;
    parts.push(line);
    length += line.length;
  }
  return parts.join("").slice(0, bytes);
}

export function archivePath(index: number, _fileCount: number): string {
  return `pkg${Math.floor(index / 500)}/module${Math.floor(index / 50) % 10}/file-${index}.ts`;
}

function entries(fileCount: number, fileBytes: number, changed: ReadonlySet<number>): ArchiveSourceEntry[] {
  return Array.from({ length: fileCount }, (_, index) => {
    const bytes = new TextEncoder().encode(fileText(index, fileBytes, changed.has(index) ? 1 : 0));
    return {
      path: archivePath(index, fileCount),
      kind: "file" as const,
      size: bytes.length,
      mode: 0o644,
      mtimeMs: Date.parse("2026-11-22T00:00:00Z"),
      chunks: async function* () {
        yield bytes;
      },
    };
  });
}

/** Writes `<dir>/<name>` unless it exists: `fileCount` files of `fileBytes`, those in `changed` altered. */
export async function ensureArchive(file: string, fileCount: number, fileBytes: number, changed: ReadonlySet<number> = new Set(), compressionLevel = 6): Promise<string> {
  if (existsSync(file)) return file;
  await mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  await writeArchive(partial, entries(fileCount, fileBytes, changed), { compressionLevel });
  const { rename } = await import("node:fs/promises");
  await rename(partial, file);
  return file;
}

/** One WINK snapshot line (keys sorted, as Python writes them). */
export function sessionLine(sessionId: string, slices: { type: string; items: Record<string, unknown>[] }[], createdAt = "2026-11-22T01:00:00.000000+00:00"): string {
  return dumpsPython(
    {
      children_ids: [],
      created_at: createdAt,
      parent_id: null,
      slices: slices.map((slice) => ({ item_type: slice.type, items: slice.items.map((item) => ({ __type__: slice.type, ...item })), slice_type: slice.type })),
      tags: { session_id: sessionId },
      version: "1",
    },
    { sortKeys: true },
  );
}

export const REF_TYPE = "wink_debug.session:FilesystemSnapshotRef";
export const TOOL_TYPE = "weakincentives.runtime.events._types:ToolInvoked";

/** A session file of about `megabytes` MB: one line of tool calls with 10 kB outputs. */
export async function ensureBigSession(file: string, megabytes: number, archive?: string): Promise<string> {
  if (existsSync(file)) return file;
  await mkdir(path.dirname(file), { recursive: true });
  const count = Math.round((megabytes * 1024 * 1024) / 10_400);
  const items = Array.from({ length: count }, (_, index) => ({
    call_id: `call_${index}`,
    created_at: `2026-11-22T01:${String(Math.floor(index / 60) % 60).padStart(2, "0")}:${String(index % 60).padStart(2, "0")}.000000+00:00`,
    event_id: `event-${index}`,
    name: index % 7 === 0 ? "write_file" : "read_file",
    params: { path: `src/file-${index}.ts` },
    rendered_output: fileText(index, 10_000),
    result: { message: `Read src/file-${index}.ts`, success: index % 50 !== 0, value: null },
  }));
  const slices: { type: string; items: Record<string, unknown>[] }[] = [{ type: TOOL_TYPE, items }];
  if (archive !== undefined) slices.push({ type: REF_TYPE, items: [{ archive_path: archive, file_count: 0, total_bytes: 0 }] });
  await writeFile(file, `${sessionLine(path.basename(file, ".jsonl"), slices)}\n`);
  return file;
}

/** Total bytes of the files in a directory (not recursive). */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(path.join(dir, name))).size;
  return total;
}

/** Median of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The port a CLI started with `--port 0` says it listens on (it prints its URL on stdout). */
export function listeningPort(child: ChildProcessByStdio<null, Readable, null>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /127\.0\.0\.1:(\d+)\//.exec(output);
      if (match !== null) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`CLI exited with ${code}: ${output}`)));
  });
}
