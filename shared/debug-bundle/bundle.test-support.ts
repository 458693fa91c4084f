/**
 * Helpers for the debug-bundle tests and benchmark: the fixture bundles and their
 * `index.json`, a bundle opened through the real archive reader with every member read
 * recorded, and hostile bundles written by Python's `zipfile` (a real, independent writer).
 * Not part of the library.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import type { ArchiveLimits } from "../filesystem/archive-limits.js";
import { openArchive } from "../archive/reader.node.js";
import type { FileIndexEntry, FileSource } from "../viewer/file-source.js";
import { DebugBundle } from "./bundle.js";
import type { DebugBundleLimits } from "./bundle.js";

const execFileAsync = promisify(execFile);

/** One bundle of `fixtures/wink-bundles/index.json` (the fields the tests use). */
export interface FixtureBundle {
  scenario: string;
  file: string;
  created_at: string;
  attempt: number | null;
  trace_id: string | null;
  iteration: number | null;
  zip_methods: string[];
  integrity_ok: boolean;
  status: string;
  trigger: string;
  request_id: string;
  session_id: string;
  filesystem_truncated: boolean;
  manifest_files: number;
  zip_entries: number;
  filesystem_files: number;
  has: Record<string, boolean>;
  log_lines: number;
  log_levels: Record<string, number>;
  wink_tool_calls: number;
  tool_invoked_events: number | null;
  tool_invoked_failed: number | null;
  transcript_entries: number;
  transcript_jsonl_lines: number;
  transcript_events_in_logs: number;
  transcript_types: Record<string, number>;
  error: { type: string; message: string } | null;
  wink_query_counts: Record<string, number>;
}

export const FIXTURE_INDEX: readonly FixtureBundle[] = JSON.parse(readFileSync(path.join(WINK_BUNDLE_FIXTURES, "index.json"), "utf8")) as FixtureBundle[];

/** The fixture bundle of a scenario (the first, for 06). */
export function fixtureBundle(scenario: string): FixtureBundle {
  const found = FIXTURE_INDEX.find((bundle) => bundle.scenario === scenario);
  if (found === undefined) throw new Error(`no fixture bundle for ${scenario}`);
  return found;
}

export const fixturePath = (bundle: FixtureBundle): string => path.join(WINK_BUNDLE_FIXTURES, bundle.file);

export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** A bundle opened through the real archive reader; `reads` lists every entry read, in order. */
export interface OpenedBundle {
  readonly bundle: DebugBundle;
  readonly reads: string[];
  close(): Promise<void>;
}

export async function openBundleFile(file: string, limits: Partial<ArchiveLimits> = {}, bundleLimits: Partial<DebugBundleLimits> = {}): Promise<OpenedBundle> {
  const reader = await openArchive(file, { deferManifest: true, limits });
  const reads: string[] = [];
  const entries: FileIndexEntry[] = [];
  reader.forEachFile((entryPath, size, crc32) => entries.push({ path: entryPath, size, fingerprint: crc32 }));
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const source: FileSource = {
    kind: "archive",
    label: path.basename(file),
    list: async () => entries,
    read: async (entryPath, maxBytes) => {
      reads.push(entryPath);
      return reader.readFile(entryPath, { maxBytes });
    },
  };
  try {
    const bundle = await DebugBundle.open(source, { path: path.relative(WINK_BUNDLE_FIXTURES, file).split(path.sep).join("/"), sha256: sha256Hex, limits: bundleLimits });
    return { bundle, reads, close: () => reader.close() };
  } catch (error) {
    await reader.close();
    throw error;
  }
}

/** A member of a crafted bundle: its entry name (as written, unchecked) and content. */
export interface CraftedEntry {
  readonly name: string;
  readonly data: string | Uint8Array;
  /** Instead of `data`: this many zero bytes, made by Python (a bomb compresses ~1000:1). */
  readonly zeros?: number;
  /** "stored" (default deflate). */
  readonly method?: "stored" | "deflate";
}

/**
 * Writes a zip with Python's `zipfile` exactly as given (hostile names included). With
 * `manifest: true`, a WINK-shaped `debug_bundle/manifest.json` with the right SHA-256 of each
 * member is added first (`checksums` overrides some).
 */
export async function writeCraftedZip(file: string, entries: readonly CraftedEntry[], options: { manifest?: boolean; status?: string; checksums?: Record<string, string> } = {}): Promise<void> {
  const all = [...entries];
  if (options.manifest === true) {
    const checksums: Record<string, string> = {};
    const files: string[] = [];
    for (const entry of entries) {
      if (!entry.name.startsWith("debug_bundle/")) continue;
      const member = entry.name.slice("debug_bundle/".length);
      files.push(member);
      checksums[member] = sha256Hex(typeof entry.data === "string" ? Buffer.from(entry.data) : entry.data);
    }
    Object.assign(checksums, options.checksums ?? {});
    const manifest = {
      format_version: "1.0.0",
      bundle_id: "00000000-0000-4000-8000-000000000001",
      created_at: "2026-11-26T05:00:00.000000+00:00",
      request: { request_id: "req-crafted", session_id: null, status: options.status ?? "success", started_at: "2026-11-26T05:00:00.000000+00:00", ended_at: "2026-11-26T05:00:01.000000+00:00" },
      capture: { mode: "full", trigger: "direct", limits_applied: { filesystem_truncated: false } },
      prompt: { ns: "", key: "", adapter: "" },
      files: files.sort(),
      integrity: { algorithm: "sha256", checksums },
      build: { version: "test", commit: "" },
    };
    all.unshift({ name: "debug_bundle/manifest.json", data: JSON.stringify(manifest, null, 2) });
  }
  const spec = all.map((entry) => ({ name: entry.name, data: Buffer.from(typeof entry.data === "string" ? Buffer.from(entry.data) : entry.data).toString("base64"), zeros: entry.zeros ?? 0, stored: entry.method === "stored" }));
  const specFile = `${file}.spec.json`;
  await writeFile(specFile, JSON.stringify(spec));
  const script = [
    "import base64, json, sys, zipfile",
    "spec = json.load(open(sys.argv[1]))",
    "with zipfile.ZipFile(sys.argv[2], 'w') as z:",
    "    for e in spec:",
    "        info = zipfile.ZipInfo(e['name'], (2026, 11, 26, 5, 0, 0))",
    "        info.compress_type = zipfile.ZIP_STORED if e['stored'] else zipfile.ZIP_DEFLATED",
    "        z.writestr(info, bytes(e['zeros']) if e['zeros'] else base64.b64decode(e['data']))",
  ].join("\n");
  await execFileAsync("python3", ["-c", script, specFile, file]);
  await execFileAsync("rm", ["-f", specFile]);
}

/**
 * Makes the entry `name` of a zip written by `writeCraftedZip` declare `declared` bytes in
 * both its local header and its central record (a "lying size" bomb: it inflates to more).
 */
export async function lieAboutSize(file: string, name: string, declared: number): Promise<void> {
  const bytes = new Uint8Array(await readFile(file));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const wanted = new TextEncoder().encode(name);
  const nameAt = (at: number, length: number) => length === wanted.length && wanted.every((byte, i) => bytes[at + i] === byte);
  let patched = 0;
  for (let at = 0; at + 46 <= bytes.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50 && nameAt(at + 30, view.getUint16(at + 26, true))) {
      view.setUint32(at + 22, declared, true);
      patched++;
    } else if (signature === 0x02014b50 && nameAt(at + 46, view.getUint16(at + 28, true))) {
      view.setUint32(at + 24, declared, true);
      patched++;
    }
  }
  if (patched !== 2) throw new Error(`lieAboutSize: patched ${patched} headers of ${name}`);
  await writeFile(file, bytes);
}
