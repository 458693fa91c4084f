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
