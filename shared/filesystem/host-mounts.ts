/**
 * Host mounts: which host files a workspace is hydrated from, within an allow-list of host
 * roots. One planner and one confinement rule for every copier: a workspace of any
 * `Filesystem` (`shared/workspace/host-mounts.node.ts`) and a Podman sandbox's overlay
 * (`podman/hydrate.ts`).
 *
 * - `hostPath` is absolute, or relative to the allowed roots (the first one holding it). It
 *   must lie inside an allowed root both as written and once symlinks are resolved; an empty
 *   allow-list allows nothing.
 * - The destination (`mountPath`) defaults to the host path relative to its allowed root
 *   (`src` for `<root>/src`); a mount of the root itself lands at the workspace root.
 * - `include` / `exclude` use the protocol's glob semantics (`glob.ts`), matched against the
 *   path relative to the mounted directory (the file name for a file mount): `*.py` matches
 *   top-level files only, `**\/*.py` every depth. An excluded directory is not descended into.
 * - Symlinks are not followed by default. With `followSymlinks`, a link is followed only when
 *   its target stays inside an allowed root (and is not a cycle); others are skipped.
 *   Special files and names the workspace cannot hold are skipped too; every skip is reported.
 * - `maxBytes` (default 64 MiB) bounds the files a mount copies; the whole plan is checked
 *   before anything is copied. A mount that fails half-way is undone: the workspace is left
 *   exactly as it was.
 */
import { constants, promises as fsp, type Stats } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { FileNotFoundError, InvalidArgumentError, PermissionDeniedError, StorageIOError } from "../errors.js";
import { compileGlob } from "./glob.js";
import { joinPath, resolveWorkspacePath } from "./paths.js";

export const DEFAULT_MOUNT_MAX_BYTES = 64 * 1024 * 1024;

export interface HostMountConfig {
  /** Host directory or file: absolute, or relative to the allowed roots. */
  readonly hostPath: string;
  /** Destination in the workspace (default: `hostPath` relative to its allowed root). */
  readonly mountPath?: string;
  /** Copy only files matching one of these globs (default: every file). */
  readonly include?: readonly string[];
  /** Skip files and directories matching any of these globs. */
  readonly exclude?: readonly string[];
  /** Bytes this mount may copy (default 64 MiB). */
  readonly maxBytes?: number;
  /** Follow symlinks whose targets stay inside the allowed roots (default false). */
  readonly followSymlinks?: boolean;
}

export interface HydrateOptions {
  /** Host directories mounts may read from; an empty list allows nothing. */
  readonly allowedHostRoots: readonly string[];
}

export interface MountSummary {
  /** The resolved host path. */
  readonly hostPath: string;
  /** Workspace destination ("" is the root). */
  readonly mountPath: string;
  readonly files: number;
  readonly bytes: number;
  /** Entries left out, relative to the mount, with the reason. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/** One host file to copy: its real path, its workspace destination, its size and mode as planned. */
export interface PlannedFile {
  readonly source: string;
  readonly destination: string;
  readonly size: number;
  readonly mode: number;
}

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

async function realRoots(roots: readonly string[]): Promise<string[]> {
  const resolved: string[] = [];
  for (const root of roots) {
    if (typeof root !== "string" || root === "") continue;
    const real = await fsp.realpath(resolve(root)).catch(() => null);
    if (real !== null) resolved.push(real);
  }
  return resolved;
}

/** Find the mount's host path inside an allowed root: `{ source (real path), root, relativePath }`. */
async function locate(mount: HostMountConfig, roots: readonly string[]): Promise<{ source: string; root: string; relativePath: string }> {
  const hostPath = mount.hostPath;
  if (typeof hostPath !== "string" || hostPath.trim() === "") throw new InvalidArgumentError("Host mount path must not be empty", { hostPath: String(hostPath) });
  if (roots.length === 0) throw new PermissionDeniedError(undefined, `Host mount ${hostPath} is outside allowed host roots: no allowed host roots are configured`, { hostPath, reason: "not-allowed" });
  const candidates = isAbsolute(hostPath) ? roots.map((root) => ({ root, path: resolve(hostPath) })) : roots.map((root) => ({ root, path: resolve(root, hostPath) }));
  let sawCandidate = false;
  for (const { root, path } of candidates) {
    if (!within(path, root)) continue;
    sawCandidate = true;
    let real: string;
    try {
      real = await fsp.realpath(path);
    } catch {
      continue;
    }
    if (!roots.some((allowed) => within(real, allowed))) {
      throw new PermissionDeniedError(undefined, `Host mount ${hostPath} is outside allowed host roots: it resolves to ${real} through a symbolic link`, { hostPath, reason: "symlink-escape" });
    }
    return { source: real, root, relativePath: relative(root, path).split(sep).join("/") };
  }
  if (!sawCandidate) throw new PermissionDeniedError(undefined, `Host mount ${hostPath} is outside allowed host roots (${roots.join(", ")})`, { hostPath, reason: "not-allowed" });
  throw new FileNotFoundError(hostPath, `Host mount path does not exist: ${hostPath}`);
}

/** One mount, planned: the files to copy (within its budget) and what is skipped. */
export interface MountPlan {
  readonly summary: Omit<MountSummary, "files" | "bytes">;
  readonly files: readonly PlannedFile[];
}

/** Plan one mount: the files to copy (checked against the budget) and what is skipped. */
async function planMount(mount: HostMountConfig, roots: readonly string[], mountPoint: string | null): Promise<MountPlan> {
  const { source, relativePath } = await locate(mount, roots);
  const mountPath = resolveWorkspacePath(mount.mountPath ?? relativePath, { mountPoint, forCreate: true });
  const include = (mount.include ?? []).map((pattern) => compileGlob(pattern));
  const exclude = (mount.exclude ?? []).map((pattern) => compileGlob(pattern));
  const budget = mount.maxBytes ?? DEFAULT_MOUNT_MAX_BYTES;
  if (!Number.isSafeInteger(budget) || budget < 0) throw new InvalidArgumentError(`max_bytes must be a non-negative integer, got ${String(budget)}`, { hostPath: mount.hostPath });
  const follow = mount.followSymlinks ?? false;
  const files: PlannedFile[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const visited = new Set<string>([source]);
  let total = 0;

  const addFile = (path: string, rel: string, stat: { size: number; mode: number }): void => {
    if (include.length > 0 && !include.some((glob) => glob.test(rel))) return;
    let destination: string;
    try {
      destination = resolveWorkspacePath(joinPath(mountPath, rel), { forCreate: true });
    } catch (error) {
      skipped.push({ path: rel, reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    total += stat.size;
    if (total > budget) {
      throw new InvalidArgumentError(`Host mount ${mount.hostPath} exceeds max_bytes (${budget} bytes) at ${rel}: nothing was copied`, { hostPath: mount.hostPath, limit: budget, reason: "max-bytes" });
    }
    files.push({ source: path, destination, size: stat.size, mode: stat.mode & 0o777 });
  };

  /** Resolve a symlink when following is on: its real target and stat, or the reason to skip it. */
  const followLink = async (path: string): Promise<{ real: string; stat: Stats } | string> => {
    if (!follow) return "symbolic link (not followed)";
    const real = await fsp.realpath(path).catch(() => null);
    if (real === null) return "broken symbolic link";
    if (!roots.some((root) => within(real, root))) return "symbolic link leaving the allowed host roots";
    if (visited.has(real)) return "symbolic link cycle";
    return { real, stat: await fsp.stat(real) };
  };

  const visit = async (dir: string, relDir: string): Promise<void> => {
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      if (exclude.some((glob) => glob.test(rel))) continue;
      const path = join(dir, entry.name);
      let target = path;
      let stat = await fsp.lstat(path);
      if (stat.isSymbolicLink()) {
        const followed = await followLink(path);
        if (typeof followed === "string") {
          skipped.push({ path: rel, reason: followed });
          continue;
        }
        target = followed.real;
        stat = followed.stat;
      }
      if (stat.isDirectory()) {
        visited.add(target);
        await visit(target, rel);
      } else if (stat.isFile()) {
        addFile(target, rel, stat);
      } else {
        skipped.push({ path: rel, reason: "not a regular file" });
      }
    }
  };

  const top = await fsp.stat(source);
  if (top.isDirectory()) await visit(source, "");
  else if (top.isFile()) addFile(source, relativePath.split("/").pop() ?? "", top);
  else throw new InvalidArgumentError(`Host mount ${mount.hostPath} is neither a file nor a directory`, { hostPath: mount.hostPath });
  // A file mount's destination is the mount path itself.
  if (top.isFile()) {
    const only = files[0];
    if (only !== undefined) files[0] = { ...only, destination: mountPath };
  }
  return { summary: { hostPath: source, mountPath, skipped }, files };
}

/**
 * Every mount planned, each inside the allowed roots and within its budget, before anything
 * is copied. `mountPoint` is the workspace's own prefix, accepted in front of `mountPath`.
 */
export async function planHostMounts(mounts: readonly HostMountConfig[], options: HydrateOptions, mountPoint: string | null): Promise<MountPlan[]> {
  const roots = await realRoots(options.allowedHostRoots);
  const plans: MountPlan[] = [];
  for (const mount of mounts) plans.push(await planMount(mount, roots, mountPoint));
  return plans;
}

/** A planned file's bytes, refused if it is no longer the regular file of the planned size (never through a symlink swapped in). */
export async function readHostFile(file: PlannedFile): Promise<Uint8Array> {
  let handle;
  try {
    // O_NOFOLLOW: a file swapped for a symlink since planning is refused, not followed.
    handle = await fsp.open(file.source, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stat = await handle.stat();
    if (!stat.isFile()) throw new PermissionDeniedError(undefined, `Host file ${file.source} is no longer a regular file`, { hostPath: file.source });
    if (stat.size !== file.size) throw new StorageIOError(undefined, `Host file ${file.source} changed while it was being mounted (${file.size} → ${stat.size} bytes)`, { hostPath: file.source });
    return new Uint8Array(await handle.readFile());
  } catch (error) {
    if (error instanceof PermissionDeniedError || error instanceof StorageIOError) throw error;
    throw new StorageIOError(undefined, `Cannot read host file ${file.source}: ${error instanceof Error ? error.message : String(error)}`, { hostPath: file.source }, { cause: error });
  } finally {
    await handle?.close();
  }
}

