/**
 * The small interface a store implements: list, stat and one ranged read. Everything else a
 * viewer needs from a store (key rules, time budgets, retries with backoff, counting the
 * bytes of a read, the range cache, random access, line indexes) lives once in `Source`
 * above the drivers, so a local folder, an HTTP server and an S3 bucket behave the same
 * (unstorage's idea, as in `shared/filesystem/driver.ts`).
 *
 * Contract for every driver method:
 * - Keys and prefixes are already checked (`keys.ts`): relative, "/"-separated, no empty,
 *   "." or ".." segments. Keys are relative to the source's root (a folder, a URL ending in
 *   "/", or a bucket and prefix).
 * - Errors are `SourceError`s with a stable code, `url` naming what failed (no
 *   credentials), and `retryable` set where trying again may help.
 * - `signal` aborts the request and its body; a driver releases its connection or file
 *   descriptor when aborted, cancelled, or when the body has been read to its end.
 * - Browser-safe: drivers that need Node live in `*.node.ts` files.
 */

/** One object as a listing or a stat reports it. */
export interface ObjectInfo {
  /** Key relative to the source's root ("runs/a.jsonl"). */
  readonly key: string;
  readonly size: number;
  /**
   * Opaque validator of this version of the object: the ETag (S3, HTTP), the Last-Modified
   * date where an HTTP server sends no ETag, or device/inode/size/mtime for a local file.
   * Null when the store has none (HTTP directory listings carry no ETag).
   */
  readonly etag: string | null;
  readonly mtimeMs: number | null;
}

export interface DriverListOptions {
  /** "/" lists one level: keys below deeper "folders" are rolled up into `prefixes`. */
  readonly delimiter?: "/";
  /** Where the previous page ended (its `cursor`); absent for the first page. */
  readonly cursor?: string;
  /** Most objects plus prefixes on one page (the store may return fewer). */
  readonly limit: number;
  readonly signal?: AbortSignal;
}

export interface ListPage {
  /** Objects whose key starts with the prefix, in UTF-8 byte order. */
  readonly objects: readonly ObjectInfo[];
  /** With a delimiter: the "folders" one level down, each ending in "/", in byte order. */
  readonly prefixes: readonly string[];
  /** Pass to the next call for the next page; null on the last page. */
  readonly cursor: string | null;
  /** Keys on this page refused by the key rules (absolute, "..", control characters…). */
  readonly skipped: number;
  /**
   * Folders met on this page that could not be listed and were left out (an HTTP folder that
   * redirects to another host), each with why; absent when there were none.
   */
  readonly skippedFolders?: readonly SkippedFolder[];
}

/** A folder a listing left out, and why (a message naming it). */
export interface SkippedFolder {
  /** Its prefix, ending in "/". */
  readonly prefix: string;
  readonly reason: string;
}

/** `length` bytes from `offset`, or the last `suffix` bytes (what a ZIP reader asks first). */
export type ByteRange = { readonly offset: number; readonly length: number } | { readonly suffix: number };

export interface DriverReadOptions {
  /** The version the caller holds: a different version yields `E_SOURCE_CHANGED`, never its bytes. */
  readonly etag?: string | null;
  readonly signal?: AbortSignal;
}

export interface DriverStatOptions {
  /** Revalidate: when the object still has this validator, `stat` resolves to null (304). */
  readonly ifNoneMatch?: string;
  readonly signal?: AbortSignal;
}

/** What a ranged read returns at once (from the response headers); the bytes follow in `chunks`. */
export interface DriverBody {
  /** Where the bytes start in the object. */
  readonly offset: number;
  /** How many bytes the store announced for this range. */
  readonly length: number;
  /** Size of the whole object. */
  readonly size: number;
  readonly etag: string | null;
  readonly mtimeMs: number | null;
  /** The bytes as they arrive. A transfer that stops early ends early or throws; the caller counts. */
  readonly chunks: AsyncIterable<Uint8Array>;
  /** Stop the transfer and release its connection or descriptor (idempotent). */
  cancel(): void;
}

/** What a driver can do beyond the contract, declared rather than discovered (unstorage's `flags`). */
export interface DriverCapabilities {
  /** Listing without a delimiter descends into every level (false: one level at a time). */
  readonly recursiveList: boolean;
  /** Listings carry each object's validator (HTTP autoindex listings do not). */
  readonly listEtags: boolean;
}

export interface SourceDriver {
  /** Short driver name for messages ("local", "http", "s3"). */
  readonly name: string;
  /** The root as shown to people: a folder, a URL or s3://bucket/prefix/, never with credentials. */
  readonly location: string;
  readonly capabilities: DriverCapabilities;
  /** How `key` is shown in messages (a URL for remote stores). */
  describe(key: string): string;
  /** One page of the keys that start with `prefix` ("" for everything, "runs/" for a folder). */
  list(prefix: string, options: DriverListOptions): Promise<ListPage>;
  /** The object's size and validator; `E_SOURCE_NOT_FOUND` for a missing object or a folder. */
  stat(key: string, options?: DriverStatOptions): Promise<ObjectInfo | null>;
  /**
   * A ranged read. A range that runs past the end is clamped; one that starts at or past the
   * end is `E_SOURCE_INVALID` (reason "range-not-satisfiable"), except a suffix of an empty
   * object, which reads as no bytes.
   */
  read(key: string, range: ByteRange, options?: DriverReadOptions): Promise<DriverBody>;
  /** Release connections and clients. */
  close?(): Promise<void>;
}
