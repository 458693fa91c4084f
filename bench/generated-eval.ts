/**
 * The generated eval the failures benchmarks read: `runs` runs in an EvalLoop layout
 * (`req-NNNNN/<file>`), copies of the real fixtures in turn — the bundles 01, 02, 03, 05, 06
 * (×3) and the session files of `fixtures/wink` and the bundled example — so sizes are the
 * fixtures' (bundles 14–301 KB, session files 9 KB–0.9 MB). Written once per folder.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../fixtures/paths.js";
import { packageRoot } from "../server/package-root.js";

async function sources(): Promise<string[]> {
  const bundles: string[] = [];
  for (const scenario of await readdir(WINK_BUNDLE_FIXTURES, { withFileTypes: true })) {
    if (!scenario.isDirectory() || scenario.name.startsWith("08")) continue;
    for (const file of await readdir(path.join(WINK_BUNDLE_FIXTURES, scenario.name))) if (file.endsWith(".zip")) bundles.push(path.join(WINK_BUNDLE_FIXTURES, scenario.name, file));
  }
  const sessions = [
    path.join(WINK_FIXTURES, "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl"),
    path.join(WINK_FIXTURES, "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"),
    path.join(packageRoot(), "examples", "snapshots", "5f0c2b8e-3d41-4a9b-8c7e-1f2a3b4c5d6e.jsonl"),
  ];
  return [...bundles.sort(), ...sessions];
}

/** Writes the eval of `runs` runs into `dir` unless a complete one is there. */
export async function generateEval(dir: string, runs: number): Promise<void> {
  const marker = path.join(dir, ".complete");
  if (existsSync(marker)) return;
  await rm(dir, { recursive: true, force: true });
  const all = await sources();
  for (let i = 0; i < runs; i++) {
    const source = all[i % all.length] as string;
    const folder = path.join(dir, `req-${String(i).padStart(5, "0")}`);
    await mkdir(folder, { recursive: true });
    await copyFile(source, path.join(folder, path.basename(source)));
  }
  await writeFile(marker, "");
}

/**
 * The plain peer the failures benchmarks measure against (issue 30): Python's `zipfile` and
 * `json` reading each run's `error.json` and latest session line (a bundle's `after.jsonl`,
 * else `before.jsonl`; a session file's lines) and counting failed `ToolInvoked` results.
 * Run as `python3 -c PYTHON_PEER DIR`; prints `{"runs", "failed_calls", "errors"}`.
 */
export const PYTHON_PEER = `
import json, os, sys, zipfile
root = sys.argv[1]
runs = failed_calls = errors = 0
def calls(line):
    global failed_calls
    snapshot = json.loads(line)
    for slice in snapshot.get("slices", []):
        if slice.get("slice_type", "").endswith(":ToolInvoked"):
            for item in slice.get("items", []):
                result = item.get("result") or {}
                if result.get("success") is False:
                    failed_calls += 1
for folder, _, files in os.walk(root):
    for name in sorted(files):
        file = os.path.join(folder, name)
        if name.endswith(".zip"):
            runs += 1
            with zipfile.ZipFile(file) as z:
                names = set(z.namelist())
                if "debug_bundle/error.json" in names:
                    json.loads(z.read("debug_bundle/error.json"))
                    errors += 1
                member = "debug_bundle/session/after.jsonl" if "debug_bundle/session/after.jsonl" in names else "debug_bundle/session/before.jsonl"
                if member in names:
                    lines = [l for l in z.read(member).decode().splitlines() if l.strip()]
                    if lines: calls(lines[-1])
        elif name.endswith(".jsonl"):
            runs += 1
            latest = {}
            with open(file) as f:
                for line in f:
                    if line.strip():
                        latest[json.loads(line)["tags"]["session_id"]] = line
            for line in latest.values(): calls(line)
print(json.dumps({"runs": runs, "failed_calls": failed_calls, "errors": errors}))
`;

/** The middle value of `values` (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
