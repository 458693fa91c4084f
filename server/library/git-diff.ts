/**
 * The fallback when jsdiff runs out of time (a fully rewritten file): `git diff --no-index`
 * on two temporary files, which handles such cases in milliseconds. Returns null when git is
 * missing or fails, so the caller reports that no line diff could be computed.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parsePatch } from "diff";
import type { HunkView } from "../../shared/viewer/index.js";
import { toHunkView } from "../../shared/viewer/index.js";

const GIT_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Hunks from `git diff --no-index` between two texts, or null. */
export async function gitDiffHunks(base: string, target: string): Promise<HunkView[] | null> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "wink-diff-"));
  try {
    const a = path.join(directory, "a");
    const b = path.join(directory, "b");
    await Promise.all([writeFile(a, base), writeFile(b, target)]);
    const output = await new Promise<string | null>((resolve) => {
      execFile(
        "git",
        ["-c", "core.quotePath=false", "diff", "--no-index", "--no-color", "--no-ext-diff", "--text", "-U3", "--", a, b],
        { timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, encoding: "utf8", env: { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", HOME: directory } },
        (error, stdout) => {
          // Exit status 1 means "the files differ": that is the answer we want.
          const code = (error as { code?: unknown } | null)?.code;
          resolve(error === null || code === 1 ? stdout : null);
        },
      );
    });
    if (output === null) return null;
    const [patch] = parsePatch(output);
    return patch === undefined ? [] : patch.hunks.map(toHunkView);
  } catch {
    return null;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
