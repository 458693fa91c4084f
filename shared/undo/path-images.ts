/**
 * Reading pre-images from, and writing them back to, any `Filesystem` — only through the
 * protocol, so undo works the same on every backend.
 *
 * An image is what a path was: a file (bytes and permission bits), a directory (always with
 * its whole subtree, so that restoring it removes whatever appeared below it since), or
 * absent. Applying images in path order (parents first) recreates exactly that state.
 */
import { InvalidArgumentError, PermissionDeniedError, hasErrorCode } from "../errors.js";
import { isWithin, parentPath, resolveWorkspacePath, stripMountPoint } from "../filesystem/paths.js";
import type { FileStat, Filesystem } from "../filesystem/protocol.js";

export type ImageState =
  | { readonly kind: "file"; readonly bytes: Uint8Array; readonly mode: number | null }
  | { readonly kind: "directory"; readonly mode: number | null }
  | { readonly kind: "absent" };

export interface PathImage {
  readonly path: string;
  readonly state: ImageState;
}

/** The normalised form of a caller's path on this filesystem, or null when it is not a valid path. */
export function normalizeFor(fs: Filesystem, path: unknown): string | null {
  try {
    return resolveWorkspacePath(path, { mountPoint: fs.mountPoint });
  } catch {
    return null;
  }
}

/**
 * The absolute spellings of a filesystem's root, normalised as `resolveWorkspacePath` leaves
 * them ("" for "/"): its mount point, and its root directory when that is absolute and not "/"
 * (a memory workspace mounted at /workspace does not hold /etc/passwd).
 */
function absoluteRoots(fs: Filesystem): string[] {
  const roots: string[] = [];
  if (fs.mountPoint) roots.push(fs.mountPoint);
  if (fs.root.startsWith("/") && (fs.root !== "/" || roots.length === 0)) roots.push(fs.root);
  return roots.map((root) => resolveWorkspacePath(root));
}

/**
 * The normalised form of a path a caller names for explicit capture. A relative path is read as
 * the protocol reads it. An absolute one names that file, as the spec's `paths:
 * ["/work/src/lib.rs"]` does: inside the root directory or mount point it is that file; anywhere
 * else it is refused (EACCES, `reason: "outside-workspace"`), because reading it root-relative
 * would capture another path (`<root>/tmp/…`) and a later restore would report success having
 * put nothing back. Malformed paths are refused with EINVAL.
 */
export function explicitCapturePath(fs: Filesystem, path: unknown): string {
  const normalized = normalizeFor(fs, path);
  if (normalized === null || typeof path !== "string") throw new InvalidArgumentError(`Invalid path to capture: ${JSON.stringify(path)}`, { path: String(path) });
  if (!path.startsWith("/")) return normalized;
  let absolute: string;
  try {
    absolute = resolveWorkspacePath(path);
  } catch {
    throw new PermissionDeniedError(path, `Cannot capture ${path} for undo: it is outside the workspace`, { reason: "outside-workspace" });
  }
  for (const root of absoluteRoots(fs)) {
    if (root === "") return absolute;
    const inside = stripMountPoint(absolute, root);
    if (inside !== absolute) return inside;
  }
  throw new PermissionDeniedError(path, `Cannot capture ${path} for undo: it is outside the workspace (${absoluteRoots(fs).map((root) => `/${root}`).join(" or ")})`, { reason: "outside-workspace" });
}

/** Stat that answers null for "nothing there" (also below a file, where a path cannot exist). */
export async function statOrNull(fs: Filesystem, path: string): Promise<FileStat | null> {
  try {
    return await fs.stat(path);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return null;
    throw error;
  }
}

function refuseLink(path: string, stat: FileStat): never {
  throw new PermissionDeniedError(path, `Cannot capture ${path} for undo: it is ${stat.kind === "symlink" ? "a symbolic link" : "not a regular file"}, which the filesystem protocol cannot recreate`, {
    reason: "undo-capture",
    kind: stat.kind,
  });
}

async function fileImage(fs: Filesystem, path: string, stat: FileStat): Promise<PathImage> {
  const { content } = await fs.readBytes(path);
  return { path, state: { kind: "file", bytes: content, mode: stat.mode } };
}

/** The path itself: its bytes when a file, its kind otherwise (no descent). Symlinks are refused. */
export async function shallowImage(fs: Filesystem, path: string): Promise<PathImage> {
  const stat = await statOrNull(fs, path);
  if (stat === null) return { path, state: { kind: "absent" } };
  if (stat.isFile) return fileImage(fs, path, stat);
  if (stat.isDirectory) return { path, state: { kind: "directory", mode: stat.mode } };
  return refuseLink(path, stat);
}

/**
 * The path and everything below it, parents before children. `skip(path)` prunes paths
 * (and their subtrees) whose image is already known.
 */
export async function subtreeImages(fs: Filesystem, path: string, skip: (path: string) => boolean = () => false): Promise<PathImage[]> {
  const images: PathImage[] = [];
  const top = await shallowImage(fs, path);
  images.push(top);
  if (top.state.kind !== "directory") return images;
  const pending = [path];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const entry of await fs.list(dir)) {
      if (skip(entry.path)) continue;
      if (entry.isDirectory) {
        const stat = await fs.stat(entry.path);
        images.push({ path: entry.path, state: { kind: "directory", mode: stat.mode } });
        pending.push(entry.path);
      } else {
        const stat = await fs.stat(entry.path);
        if (!stat.isFile) refuseLink(entry.path, stat);
        images.push(await fileImage(fs, entry.path, stat));
      }
    }
  }
  return images.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * For a path about to be created: the highest ancestor (or the path itself) that does not
 * exist yet, so that undoing also removes the directories the creation made.
 */
export async function highestMissing(fs: Filesystem, path: string): Promise<string> {
  let missing = path;
  for (let parent = parentPath(missing); missing !== "" && parent !== ""; parent = parentPath(missing)) {
    if ((await statOrNull(fs, parent)) !== null) break;
    missing = parent;
  }
  return missing;
}

/** True when `path` or one of its ancestors is among `paths`. */
export function isCovered(paths: ReadonlySet<string> | ReadonlyMap<string, unknown>, path: string): boolean {
  if (paths.has(path)) return true;
  for (let current = path; current !== ""; ) {
    current = parentPath(current);
    if (paths.has(current)) return true;
  }
  return false;
}

async function removeIfPresent(fs: Filesystem, path: string): Promise<void> {
  if (path === "") {
    for (const entry of await fs.list("")) await fs.delete(entry.path, { recursive: true });
    return;
  }
  if ((await statOrNull(fs, path)) !== null) await fs.delete(path, { recursive: true });
}

async function applyOne(fs: Filesystem, image: PathImage): Promise<void> {
  const { path, state } = image;
  switch (state.kind) {
    case "absent":
      await removeIfPresent(fs, path);
      return;
    case "directory":
      // A directory image carries its subtree: clear what is there, the children follow.
      await removeIfPresent(fs, path);
      if (path !== "") await fs.mkdir(path, { parents: true, existOk: true });
      return;
    case "file": {
      const current = await statOrNull(fs, path);
      // Permission bits of an existing file survive an overwrite, so a changed mode means recreate.
      if (current !== null && (!current.isFile || (state.mode !== null && current.mode !== null && current.mode !== state.mode))) {
        await fs.delete(path, { recursive: true });
      }
      await fs.writeBytes(path, state.bytes, { mode: "overwrite", createParents: true, ...(state.mode === null ? {} : { fileMode: state.mode }) });
      return;
    }
  }
}

/**
 * Write images back, parents before children. Paths below a directory or absent image that
 * are not themselves listed were cleared with it.
 */
export async function applyImages(fs: Filesystem, images: readonly PathImage[]): Promise<void> {
  const sorted = [...images].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const image of sorted) await applyOne(fs, image);
}

/** The current state of every path `images` would touch, for rolling back a failed apply. */
export async function currentImagesFor(fs: Filesystem, paths: Iterable<string>): Promise<PathImage[]> {
  const tops: string[] = [];
  // A missing path is widened to its highest missing ancestor, so directories an apply creates on the way are removed again.
  for (const path of new Set(paths)) tops.push((await statOrNull(fs, path)) === null ? await highestMissing(fs, path) : path);
  tops.sort();
  const roots: string[] = [];
  for (const path of tops) if (!roots.some((root) => isWithin(path, root))) roots.push(path);
  const images: PathImage[] = [];
  for (const root of roots) images.push(...(await subtreeImages(fs, root)));
  return images;
}

/**
 * Apply images all-or-nothing: the touched paths are captured first and written back if
 * any step fails, then the original error is rethrown.
 */
export async function applyImagesAtomically(fs: Filesystem, images: readonly PathImage[]): Promise<void> {
  const previous = await currentImagesFor(
    fs,
    images.map((image) => image.path),
  );
  try {
    await applyImages(fs, images);
  } catch (error) {
    await applyImages(fs, previous);
    throw error;
  }
}
