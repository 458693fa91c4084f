/** What a backend gives the conformance suite, and what the suite asks of it. */
import type { FilesystemLimits } from "../limits.js";
import type { Filesystem } from "../protocol.js";

export interface ConformanceCreateOptions {
  readonly readOnly?: boolean;
  /** Files (and, for keys ending in "/", directories) to exist before the filesystem is returned. */
  readonly seed?: Readonly<Record<string, string | Uint8Array>>;
  readonly mountPoint?: string | null;
  readonly limits?: Partial<FilesystemLimits>;
}

export interface ConformanceInstance {
  readonly fs: Filesystem;
  /** Called after each test. */
  readonly cleanup?: () => Promise<void>;
}

export interface ConformanceCapabilities {
  /** Keeps permission bits (exec bit survives write/export/import). Default false. */
  readonly fileModes?: boolean;
  /** Reports modification times in stat(). Default false. */
  readonly timestamps?: boolean;
  /** Implements `SnapshotableFilesystem` (snapshot, restore, diff, default retention). Default false. */
  readonly snapshots?: boolean;
}

export interface ConformanceOptions {
  readonly name: string;
  readonly create: (options?: ConformanceCreateOptions) => Promise<ConformanceInstance>;
  readonly capabilities?: ConformanceCapabilities;
  /** Expected `root` of a default instance (e.g. "/" in memory); a function for per-instance roots. */
  readonly expectedRoot?: string | ((fs: Filesystem) => string);
  /** Slow backends (containers) can raise the per-test timeout. */
  readonly timeoutMs?: number;
}
