/**
 * Hydrating a sandbox overlay from host mounts, before the container starts: the mounts are
 * planned and confined by `../host-mounts.ts`, the one rule every copier follows (host paths
 * inside `allowedHostRoots` as written and once symlinks are resolved, include/exclude globs,
 * symlinks not followed unless asked and never out of the roots, special files and names the
 * workspace cannot hold skipped and reported, a byte budget per mount checked before
 * anything is copied). File modes are kept.
 */
import { promises as fsp } from "node:fs";
import { dirname, join } from "node:path";
import { FileExistsError } from "../../errors.js";
import type { HostMountConfig, HydrateOptions } from "../host-mounts.js";
import { planHostMounts, readHostFile } from "../host-mounts.js";
import { errnoCode } from "../errno.js";

/** A host mount of a sandbox (the same configuration as a workspace's host mounts). */
export type OverlayMount = HostMountConfig;

export interface OverlayHydration {
  readonly files: number;
  readonly bytes: number;
  /** Host entries left out, relative to their mount, with the reason. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/**
 * Copy each mount's files into `overlay` (a fresh directory that only we write to).
 * `mountPoint` is the workspace's own prefix, accepted in front of `mountPath`. Two mounts
 * that copy the same file are refused (EEXIST).
 */
export async function hydrateOverlay(overlay: string, mounts: readonly OverlayMount[], options: HydrateOptions, mountPoint: string | null = "/workspace"): Promise<OverlayHydration> {
  const plans = await planHostMounts(mounts, options, mountPoint);
  let files = 0;
  let bytes = 0;
  for (const plan of plans) {
    for (const file of plan.files) {
      const data = await readHostFile(file);
      const destinationPath = join(overlay, file.destination);
      await fsp.mkdir(dirname(destinationPath), { recursive: true });
      await fsp.writeFile(destinationPath, data, { flag: "wx", mode: file.mode }).catch((error: unknown) => {
        if (errnoCode(error) === "EEXIST") throw new FileExistsError(file.destination, `Host mounts overlap: ${file.destination} is copied twice`);
        throw error;
      });
      // The umask narrowed the mode given at creation.
      await fsp.chmod(destinationPath, file.mode);
      files += 1;
      bytes += data.length;
    }
  }
  return { files, bytes, skipped: plans.flatMap((plan) => plan.summary.skipped) };
}
