/**
 * Archive entry names: decoding and validation. Browser-safe (the web app validates the
 * names jszip gives it with the same rules the server applies).
 *
 * A name is refused when it could land anywhere but where it says, or could not be written
 * on every backend: empty names, absolute paths, drive letters (`C:`, `C:x`) and UNC
 * prefixes, backslashes, NUL/control/bidi characters (`findForbiddenCharacter`), invalid
 * UTF-8, empty/`.`/`..` segments anywhere (even when `..` would stay inside the tree, as
 * yauzl does), and names longer or deeper than the limits. Directory entries end with `/`.
 */
import { ArchiveError } from "../errors.js";
import { displayPath, findForbiddenCharacter, isGitMetadataSegment } from "../filesystem/paths.js";
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from "../filesystem/archive-limits.js";

/** The name limits of `ArchiveLimits`. */
export type EntryNameLimits = Pick<ArchiveLimits, "maxSegmentBytes" | "maxPathBytes" | "maxDepth">;

/** Prefix of workspace files in the `.fs.zip` "files" variant. */
export const FILES_PREFIX = "files/";

/** A validated entry name. */
export interface EntryName {
  /** The name without the trailing `/` of a directory entry. */
  readonly path: string;
  readonly isDirectory: boolean;
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lossyUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function refuse(entry: string, reason: string, message: string, code: "E_ARCHIVE_ENTRY" | "E_ARCHIVE_LIMIT" = "E_ARCHIVE_ENTRY", extra: Record<string, unknown> = {}): never {
  throw new ArchiveError(code, `${message}: ${displayPath(entry)}`, { entry, reason, ...extra });
}

/**
 * Decode the raw bytes of an entry name as UTF-8, whether or not the entry sets the UTF-8
 * flag (Info-ZIP on Linux writes UTF-8 without it; we never guess CP437). Invalid UTF-8 is
 * refused; the error's `entry` is a lossy rendering and `entryBytes` the hex bytes.
 */
export function decodeEntryName(bytes: Uint8Array): string {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return refuse(lossyUtf8.decode(bytes), "invalid-utf8", "Entry name is not valid UTF-8", "E_ARCHIVE_ENTRY", { entryBytes: hex });
  }
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * Check a relative POSIX path (no trailing slash) against the name rules. `entry` is the
 * name reported in errors (the full entry name, or the manifest field being checked).
 */
export function checkRelativePath(path: string, entry: string = path, limits: EntryNameLimits = DEFAULT_ARCHIVE_LIMITS): void {
  if (path === "") refuse(entry, "empty", "Empty entry name");
  if (path.charCodeAt(0) === 0x2f) refuse(entry, "absolute", "Absolute entry name");
  const forbidden = findForbiddenCharacter(path);
  if (forbidden !== null) refuse(entry, "forbidden-character", `Entry name contains a ${forbidden}`);
  let segmentStart = 0;
  let segmentBytes = 0;
  let totalBytes = 0;
  let depth = 0;
  for (let i = 0; i <= path.length; i++) {
    const code = i < path.length ? path.charCodeAt(i) : 0x2f;
    if (code !== 0x2f) {
      if (code < 0x80) segmentBytes += 1;
      else if (code < 0x800) segmentBytes += 2;
      else if (code >= 0xd800 && code <= 0xdbff) {
        // findForbiddenCharacter refused lone surrogates, so a low surrogate follows.
        segmentBytes += 4;
        i++;
      } else segmentBytes += 3;
      continue;
    }
    const length = i - segmentStart;
    if (length === 0) refuse(entry, "empty-segment", "Entry name has an empty segment");
    const first = path.charCodeAt(segmentStart);
    if (first === 0x2e && (length === 1 || (length === 2 && path.charCodeAt(segmentStart + 1) === 0x2e))) {
      refuse(entry, "dot-segment", `Entry name has a "${path.slice(segmentStart, i)}" segment`);
    }
    if (length >= 2 && path.charCodeAt(segmentStart + 1) === 0x3a && isAsciiLetter(first)) {
      refuse(entry, "drive", "Entry name has a drive letter");
    }
    if (segmentBytes > limits.maxSegmentBytes) {
      refuse(entry, "segment-too-long", `Entry name has a segment longer than ${limits.maxSegmentBytes} bytes`, "E_ARCHIVE_LIMIT", {
        limit: limits.maxSegmentBytes,
        actual: segmentBytes,
      });
    }
    totalBytes += segmentBytes + (i < path.length ? 1 : 0);
    depth += 1;
    if (depth > limits.maxDepth) {
      refuse(entry, "too-deep", `Entry name is deeper than ${limits.maxDepth} segments`, "E_ARCHIVE_LIMIT", { limit: limits.maxDepth });
    }
    segmentStart = i + 1;
    segmentBytes = 0;
  }
  if (totalBytes > limits.maxPathBytes) {
    refuse(entry, "path-too-long", `Entry name is longer than ${limits.maxPathBytes} bytes`, "E_ARCHIVE_LIMIT", {
      limit: limits.maxPathBytes,
      actual: totalBytes,
    });
  }
}

/**
 * Validate a decoded entry name. Directory entries end with one `/`, which is removed from
 * the returned `path`. Throws `ArchiveError` (`E_ARCHIVE_ENTRY`, or `E_ARCHIVE_LIMIT` for
 * length and depth) with `data.entry` set to the name and `data.reason`.
 */
export function validateEntryName(name: string, limits: EntryNameLimits = DEFAULT_ARCHIVE_LIMITS): EntryName {
  const isDirectory = name.length > 0 && name.charCodeAt(name.length - 1) === 0x2f;
  const path = isDirectory ? name.slice(0, -1) : name;
  checkRelativePath(path, name, limits);
  return { path, isDirectory };
}

export { isGitMetadataSegment };

/** The first git-metadata segment of a relative path, or null (see `isGitMetadataSegment`). */
export function findGitMetadataSegment(path: string): string | null {
  if (!/g/i.test(path)) return null;
  for (const segment of path.split("/")) {
    if (isGitMetadataSegment(segment)) return segment;
  }
  return null;
}

/** Entry name of a workspace path in the "files" variant (`files/<path>`, plus `/` for directories). */
export function toFilesEntryName(path: string, isDirectory = false): string {
  return `${FILES_PREFIX}${path}${isDirectory ? "/" : ""}`;
}
