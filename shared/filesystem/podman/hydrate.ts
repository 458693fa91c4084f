/**
 * Hydrating a sandbox overlay from host directories: a plain include/exclude copy, done
 * before the container starts. Symlinks and special files on the host are skipped (never
 * followed), names the workspace cannot hold are skipped and reported, file modes are kept,
 * and a byte budget bounds the whole copy. Globs use the protocol's glob semantics
 * (`glob.ts`), relative to the mount's host directory.
 */
import { constants, promises as fsp } from "node:fs";
import { dirname, join } from "node:path";
import { FileExistsError, InvalidArgumentError } from "../../errors.js";
import { compileGlob } from "../glob.js";
import { joinPath, resolveWorkspacePath } from "../paths.js";

export interface OverlayMount {
  /** Host directory to copy from. */
  readonly hostPath: string;
  /** Destination inside the workspace, e.g. "docs" or "/workspace/docs" (default: the workspace root). */
  readonly mountPath?: string;
  /** Only files matching one of these globs (default: all). */
  readonly include?: readonly string[];
  /** Skip files (and directories) matching any of these globs. */
  readonly exclude?: readonly string[];
  /** Total bytes this mount may copy (default 64 MiB). */
  readonly maxBytes?: number;
}

export interface OverlayHydration {
  readonly files: number;
  readonly bytes: number;
  /** Host entries left out, relative to their mount, with the reason. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Copy each mount's files into `overlay` (a fresh directory that only we write to).
 * `mountPoint` is the workspace's own prefix, accepted in front of `mountPath`.
 */
export async function hydrateOverlay(overlay: string, mounts: readonly OverlayMount[], mountPoint: string | null = "/workspace"): Promise<OverlayHydration> {
  let files = 0;
  let bytes = 0;
  const skipped: { path: string; reason: string }[] = [];
  for (const mount of mounts) {
    const destination = resolveWorkspacePath(mount.mountPath ?? "", { forCreate: true, mountPoint });
    const include = (mount.include ?? []).map((pattern) => compileGlob(pattern));
    const exclude = (mount.exclude ?? []).map((pattern) => compileGlob(pattern));
    const budget = mount.maxBytes ?? DEFAULT_MAX_BYTES;
    let used = 0;
    const root = await fsp.stat(mount.hostPath).catch(() => null);
    if (root === null || !root.isDirectory()) throw new InvalidArgumentError(`Host mount is not a directory: ${mount.hostPath}`, { hostPath: mount.hostPath });

    const visit = async (relative: string): Promise<void> => {
      const entries = await fsp.readdir(join(mount.hostPath, relative), { withFileTypes: true });
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (exclude.some((glob) => glob.test(rel))) continue;
        let target: string;
        try {
          target = resolveWorkspacePath(joinPath(destination, rel));
        } catch (error) {
          skipped.push({ path: rel, reason: error instanceof Error ? error.message : String(error) });
          continue;
        }
        if (entry.isDirectory()) {
          await visit(rel);
          continue;
        }
        if (!entry.isFile()) {
          skipped.push({ path: rel, reason: entry.isSymbolicLink() ? "symbolic link" : "not a regular file" });
          continue;
        }
        if (include.length > 0 && !include.some((glob) => glob.test(rel))) continue;
        const source = join(mount.hostPath, rel);
        const stats = await fsp.lstat(source);
        if (!stats.isFile()) continue; // replaced since the listing
        if (used + stats.size > budget) {
          throw new InvalidArgumentError(`Host mount ${mount.hostPath} exceeds its budget of ${budget} bytes at ${rel}`, { hostPath: mount.hostPath, limit: budget });
        }
        const destinationPath = join(overlay, target);
        await fsp.mkdir(dirname(destinationPath), { recursive: true });
        // COPYFILE_FICLONE clones where the filesystem can and copies otherwise.
        await fsp.copyFile(source, destinationPath, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE).catch((error: unknown) => {
          if ((error as { code?: unknown }).code === "EEXIST") throw new FileExistsError(target, `Host mounts overlap: ${target} is copied twice`);
          throw error;
        });
        await fsp.chmod(destinationPath, stats.mode & 0o777);
        used += stats.size;
        files += 1;
        bytes += stats.size;
      }
    };
    await visit("");
  }
  return { files, bytes, skipped };
}
