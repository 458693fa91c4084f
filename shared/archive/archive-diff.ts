/**
 * Archive-vs-archive diff from central directories alone: sizes and CRC-32s, nothing
 * inflated. Browser-safe (it only needs the two file lists).
 */
import type { FilesystemDiff } from "../filesystem/snapshot-contract.js";
import { diffFileIndexes } from "./index-diff.js";

/** What `diffArchives` needs of an archive: an `ArchiveReader`, or any list of files with sizes and CRC-32s. */
export interface ArchiveFileList {
  readonly files: readonly { readonly path: string; readonly size: number; readonly crc32: number }[];
}

/**
 * Files added, modified and deleted from archive `a` to archive `b`, judged by size and
 * CRC-32 (a changed file keeping both is a 2^-32 chance; callers needing certainty compare
 * the bytes of the files reported unchanged).
 */
export function diffArchives(a: ArchiveFileList, b: ArchiveFileList): FilesystemDiff {
  const index = (list: ArchiveFileList) => list.files.map((file) => ({ path: file.path, size: file.size, fingerprint: file.crc32 }));
  return diffFileIndexes(index(a), index(b));
}
