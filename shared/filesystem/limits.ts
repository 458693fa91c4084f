/**
 * Limits of the `Filesystem` protocol. Defaults are those of the specification's limits
 * table; every filesystem takes overrides (`new InMemoryFilesystem({ limits: {...} })`).
 */
export interface FilesystemLimits {
  /** Characters per `write()` call. */
  readonly maxWriteChars: number;
  /** Bytes per `writeBytes()` call or `openWrite()` stream. */
  readonly maxWriteBytes: number;
  /** Segments in a path that is created (write, mkdir). */
  readonly maxPathDepth: number;
  /** Characters per segment of a path that is created. */
  readonly maxSegmentLength: number;
  /** Lines returned by `read()` when no limit is given. */
  readonly defaultReadLimit: number;
  /** Matches returned by `grep()` when no `maxMatches` is given (and its upper bound). */
  readonly maxGrepMatches: number;
  /** Wall-clock budget of one `grep()` call, in milliseconds. */
  readonly grepTimeoutMs: number;
  /** Files larger than this are skipped by `grep()`. */
  readonly maxGrepFileBytes: number;
  /** Longest accepted regular expression, in characters. */
  readonly maxPatternLength: number;
}

export const MAX_WRITE_LENGTH = 48_000;
export const MAX_WRITE_BYTES = 32 * 1024 * 1024;
export const MAX_PATH_DEPTH = 16;
export const MAX_SEGMENT_LENGTH = 80;
export const DEFAULT_READ_LIMIT = 2_000;
export const MAX_GREP_MATCHES = 1_000;

/** Limits of the host OS that apply to every path, created or not (Linux NAME_MAX, PATH_MAX). */
export const OS_MAX_SEGMENT_BYTES = 255;
export const OS_MAX_PATH_BYTES = 4_096;

export const DEFAULT_FILESYSTEM_LIMITS: FilesystemLimits = Object.freeze({
  maxWriteChars: MAX_WRITE_LENGTH,
  maxWriteBytes: MAX_WRITE_BYTES,
  maxPathDepth: MAX_PATH_DEPTH,
  maxSegmentLength: MAX_SEGMENT_LENGTH,
  defaultReadLimit: DEFAULT_READ_LIMIT,
  maxGrepMatches: MAX_GREP_MATCHES,
  grepTimeoutMs: 5_000,
  maxGrepFileBytes: 64 * 1024 * 1024,
  maxPatternLength: 4_096,
});

export function resolveLimits(overrides?: Partial<FilesystemLimits>): FilesystemLimits {
  return Object.freeze({ ...DEFAULT_FILESYSTEM_LIMITS, ...overrides });
}
