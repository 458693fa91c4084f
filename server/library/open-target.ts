/**
 * From what the user typed to what is served: a local directory or file, or a remote
 * store's URL (`s3://bucket/prefix`, `http(s)://host/folder/`), possibly naming one file
 * (`s3://bucket/runs/run.jsonl`) whose folder is then served with that file opened first.
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SessionLoadError } from "../../shared/errors.js";
import type { OpenSourceOptions } from "../../shared/remote/index.js";
import { isRemoteTarget, openDiskBlockCache, openSource } from "../../shared/remote/index.js";
import { BudgetedRangeCache, budgetedReadGate } from "./budgeted-range-cache.js";
import { RemoteFiles } from "./remote-files.js";
import type { ServedFiles } from "./served-files.js";
import { LocalFiles, kindOf } from "./served-files.js";
import type { MemoryBudget } from "./weighted-cache.js";

export interface OpenedTarget {
  readonly files: ServedFiles;
  /** The root as the user gave it (local), or the store's URL without credentials (remote). */
  readonly displayRoot: string;
  /** The file the target named (relative to the root), or null for a folder. */
  readonly preferred: string | null;
  /** What to call the target in messages (never with credentials). */
  readonly shown: string;
}

/**
 * How to reach a remote store; the block cache and the reads in flight are the server's
 * (counted in `--memory`), the disk cache is opened here from `cacheDir`.
 */
export type RemoteTargetOptions = Omit<OpenSourceOptions, "cache" | "disk" | "gate"> & {
  /** A folder keeping blocks read from the store for later processes (`--cache-dir`); none: nothing is written. */
  readonly cacheDir?: string;
  /** Most bytes kept in `cacheDir` (default 1 GiB, `--cache-size`). */
  readonly cacheBytes?: number;
};

/**
 * Splits a remote URL naming a session file or bundle into its folder and the file's name
 * (null: the URL names a folder). Query strings and fragments are left for the driver to refuse.
 */
export function splitRemoteTarget(target: string): { root: string; file: string | null } {
  const match = /^([a-z0-9]+:\/\/[^?#]*\/)([^/?#]+)$/i.exec(target);
  if (match === null || kindOf(decodeURIComponent(match[2] as string), true) === null) return { root: target, file: null };
  return { root: match[1] as string, file: decodeURIComponent(match[2] as string) };
}

export async function openTarget(target: string, memory: MemoryBudget, remote: RemoteTargetOptions = {}): Promise<OpenedTarget> {
  if (isRemoteTarget(target)) {
    const { root, file } = splitRemoteTarget(target);
    const { cacheDir, cacheBytes, ...reach } = remote;
    // Opened before the store is asked anything: an unusable folder is refused at start, naming it.
    const disk = cacheDir === undefined ? undefined : await openDiskBlockCache(cacheDir, cacheBytes === undefined ? {} : { maxBytes: cacheBytes });
    const source = openSource(root, { ...reach, cache: new BudgetedRangeCache(memory), gate: budgetedReadGate(memory), ...(disk === undefined ? {} : { disk }) });
    return { files: new RemoteFiles(source), displayRoot: source.location, preferred: file, shown: file === null ? source.location : source.describe(file) };
  }
  const given = path.resolve(target);
  const stats = await stat(given).catch((error: unknown) => {
    throw new SessionLoadError(`No such file or directory: ${given}`, { path: given }, { cause: error });
  });
  const isFile = stats.isFile();
  if (!isFile && !stats.isDirectory()) throw new SessionLoadError(`Not a file or directory: ${given}`, { path: given });
  const displayRoot = isFile ? path.dirname(given) : given;
  return { files: new LocalFiles(await realpath(displayRoot)), displayRoot, preferred: isFile ? path.basename(given) : null, shown: given };
}
