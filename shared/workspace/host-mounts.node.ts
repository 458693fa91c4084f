/**
 * Host mounts into a workspace of any `Filesystem`: the mounts are planned and confined by
 * `shared/filesystem/host-mounts.ts` (allowed host roots, globs, symlinks, byte budgets; see
 * there) and written through the filesystem. A mount that fails half-way is undone: the
 * workspace is left exactly as it was.
 */
import type { HostMountConfig, HydrateOptions, MountSummary } from "../filesystem/host-mounts.js";
import { planHostMounts, readHostFile } from "../filesystem/host-mounts.js";
import type { Filesystem } from "../filesystem/protocol.js";
import { applyImages, currentImagesFor } from "../undo/path-images.js";

export { DEFAULT_MOUNT_MAX_BYTES, type HostMountConfig, type HydrateOptions, type MountSummary } from "../filesystem/host-mounts.js";

/**
 * Copy each mount into `fs`. Every mount is planned (and its budget checked) before anything
 * is written; if copying fails, everything written is undone and the error is rethrown.
 */
export async function hydrateHostMounts(fs: Filesystem, mounts: readonly HostMountConfig[], options: HydrateOptions): Promise<MountSummary[]> {
  const plans = await planHostMounts(mounts, options, fs.mountPoint);
  const destinations = plans.flatMap((plan) => plan.files.map((file) => file.destination));
  const previous = await currentImagesFor(fs, destinations);
  const summaries: MountSummary[] = [];
  try {
    for (const plan of plans) {
      let bytes = 0;
      for (const file of plan.files) {
        const data = await readHostFile(file);
        await fs.writeBytes(file.destination, data, { mode: "overwrite", createParents: true, fileMode: file.mode });
        bytes += data.length;
      }
      summaries.push({ ...plan.summary, files: plan.files.length, bytes });
    }
  } catch (error) {
    await applyImages(fs, previous);
    throw error;
  }
  return summaries;
}
