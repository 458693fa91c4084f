import * as fs from "node:fs";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { BackendUnavailableError, FileNotFoundError, InvalidArgumentError } from "../../../errors.js";
import { assertProcFdAvailable } from "../io/confined.js";
import { errnoCode } from "../../errno.js";
import { mapFsError } from "../io/host-errors.js";
import { type TreeApplyOptions } from "./types.js";

/** `$XDG_STATE_HOME/wink-debug/tree-apply` (or `~/.local/state/…`, or the temp dir). Persistent, so a journal survives a reboot. */
export function defaultTreeApplyStateDir(): string {
  const xdg = process.env.XDG_STATE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "wink-debug", "tree-apply");
  try {
    const home = homedir();
    if (home) return path.join(home, ".local", "state", "wink-debug", "tree-apply");
  } catch {
    // no home directory: fall through
  }
  return path.join(tmpdir(), "wink-debug-tree-apply");
}

export interface RootInfo {
  readonly real: string;
  readonly key: string;
  readonly dev: number;
  readonly ino: number;
  readonly stateDir: string;
}

export function rootInfo(root: string, options: TreeApplyOptions): RootInfo {
  assertProcFdAvailable();
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") throw new FileNotFoundError("", `Root directory does not exist: ${root}`, { root });
    throw mapFsError(error, "", `resolve the root ${root} to`);
  }
  const stats = fs.statSync(real);
  if (!stats.isDirectory()) throw new InvalidArgumentError(`Root is not a directory: ${root}`, { root });
  const key = createHash("sha256").update(real).digest("hex").slice(0, 24);
  const stateDir = path.resolve(options.stateDir ?? defaultTreeApplyStateDir());
  return { real, key, dev: stats.dev, ino: stats.ino, stateDir };
}

export const journalPath = (info: RootInfo): string => path.join(info.stateDir, `${info.key}.journal`);

/** Keys of applies running in this process (a second concurrent apply on a root is refused). */
export const activeApplies = new Set<string>();
/** Staging directory names of this process still in use (being filled or applied). */
export const liveStagings = new Set<string>();

export function busyError(info: RootInfo, pid: number): BackendUnavailableError {
  return new BackendUnavailableError(`Another tree change is being applied to ${info.real} (process ${pid}); try again when it has finished`, {
    root: info.real,
    pid,
  });
}

export async function syncFilesystem(target: string): Promise<void> {
  // syncfs(2) through coreutils: one call makes every staged file and rename durable,
  // instead of an fsync per file. Best effort: a missing `sync` only weakens power-loss safety.
  await new Promise<void>((resolve) => {
    execFile("sync", ["-f", "--", target], { timeout: 60_000 }, () => resolve());
  });
}


export function unlinkQuietly(target: string | Buffer): void {
  try {
    fs.unlinkSync(target);
  } catch {
    // already gone
  }
}
