/**
 * Limits applied to every archive we read. They bound the bytes actually inflated, not the
 * sizes an archive declares. Defaults allow real workspaces; tests that need tighter ones
 * pass overrides.
 */
export interface ArchiveLimits {
  /** Entries in the central directory. */
  readonly maxEntries: number;
  /** Uncompressed bytes of all entries together. */
  readonly maxTotalBytes: number;
  /** Uncompressed bytes of one entry. */
  readonly maxFileBytes: number;
  /** Uncompressed/compressed ratio of one entry (checked on entries larger than 1 MiB). */
  readonly maxCompressionRatio: number;
  /** Bytes in one path segment. */
  readonly maxSegmentBytes: number;
  /** Bytes in a whole entry name. */
  readonly maxPathBytes: number;
  /** Segments in an entry name. */
  readonly maxDepth: number;
  /** Bytes of manifest.json / _wink_metadata.json. */
  readonly maxManifestBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = Object.freeze({
  maxEntries: 200_000,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxFileBytes: 256 * 1024 * 1024,
  maxCompressionRatio: 200,
  maxSegmentBytes: 255,
  maxPathBytes: 4_096,
  maxDepth: 64,
  maxManifestBytes: 16 * 1024 * 1024,
});

export function resolveArchiveLimits(overrides?: Partial<ArchiveLimits>): ArchiveLimits {
  return Object.freeze({ ...DEFAULT_ARCHIVE_LIMITS, ...overrides });
}
