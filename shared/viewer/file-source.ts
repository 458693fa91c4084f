/**
 * Where a snapshot's workspace files come from, behind one small interface: an `.fs.zip`
 * archive (opened by the server with the archive module, or with jszip in the browser) or
 * the snapshot's own `VirtualFileSystem` slice. Everything the viewer computes about files
 * (trees, change badges, diffs, search) goes through `FileSource`, so it runs the same on
 * both sides.
 */
import { FileNotFoundError } from "../errors.js";
import type { FileIndexEntry } from "../archive/index-diff.js";
import type { VirtualFile } from "../session/workspace-items.js";
import { crc32 } from "./crc32.js";
import type { FilesystemSourceKind } from "./types.js";

export type { FileIndexEntry };

/** A read-only set of files: a listing with fingerprints, and reads of one file. */
export interface FileSource {
  readonly kind: FilesystemSourceKind;
  /** Archive file name, or `VirtualFileSystem`. */
  readonly label: string;
  /** Every file (no directories), with sizes and content fingerprints; cheap to call again. */
  list(): Promise<readonly FileIndexEntry[]>;
  /**
   * The file's bytes. Throws `FileNotFoundError` for a path that is not in `list()` and an
   * error with code `E_ARCHIVE_LIMIT`/`EINVAL` when the file is larger than `maxBytes`.
   * `transient`: the caller keeps what it derives from the bytes itself (a rendered
   * response), so a source with a cache need not keep them too.
   */
  read(path: string, maxBytes: number, options?: { readonly transient?: boolean }): Promise<Uint8Array>;
  /**
   * The file as checked chunks, for answers too big to hold (downloads): the same refusals as
   * `read` before the first chunk, and a source that verifies content (an archive's CRC-32)
   * does so before the last chunk. Sources that hold their files in memory need not have it.
   */
  stream?(path: string, maxBytes: number): Promise<FileStream>;
}

/** A file being streamed: its size and its content. */
export interface FileStream {
  readonly size: number;
  readonly chunks: AsyncIterable<Uint8Array>;
}

const encoder = new TextEncoder();

/**
 * A source over the files of a `VirtualFileSystem` slice. Sizes are the UTF-8 length of the
 * content and fingerprints its CRC-32, exactly what an archive of the same files lists.
 * The contents stay the slice's strings (encoded again on each read): keeping their bytes
 * too would hold the line's files twice.
 */
export function virtualFileSource(files: readonly VirtualFile[]): FileSource {
  let index: Map<string, { entry: FileIndexEntry; content: string }> | null = null;
  const build = (): Map<string, { entry: FileIndexEntry; content: string }> => {
    if (index !== null) return index;
    index = new Map();
    for (const file of files) {
      const bytes = encoder.encode(file.content);
      index.set(file.path, { entry: { path: file.path, size: bytes.length, fingerprint: crc32(bytes) }, content: file.content });
    }
    return index;
  };
  return {
    kind: "virtual_filesystem",
    label: "VirtualFileSystem",
    async list() {
      return [...build().values()].map((value) => value.entry).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async read(path: string) {
      const found = build().get(path);
      if (found === undefined) throw new FileNotFoundError(path);
      return encoder.encode(found.content);
    },
  };
}
