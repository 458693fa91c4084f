/**
 * Every error the library throws, defined once.
 *
 * Callers branch on `code` (stable, documented in docs/errors.md) and read structured
 * `data`; they never parse messages. `toJSON()` keeps errors intact across process and
 * HTTP boundaries. The server maps codes to HTTP statuses from `ERROR_CODES`.
 */

/** The table of every error code: what it means and the HTTP status the viewer answers with. */
export const ERROR_CODES = {
  ENOENT: { status: 404, description: "The path does not exist." },
  EISDIR: { status: 400, description: "The path is a directory where a file was expected." },
  ENOTDIR: { status: 400, description: "The path (or one of its parents) is a file where a directory was expected." },
  EEXIST: { status: 409, description: "The path already exists." },
  ENOTEMPTY: { status: 409, description: "The directory is not empty and recursive deletion was not requested." },
  EACCES: { status: 403, description: "Access denied: read-only filesystem, path escaping the root, symlink, special file or protected path." },
  EINVAL: { status: 400, description: "Invalid argument: bad path, limit exceeded, binary content read as text, invalid pattern." },
  ELOOP: { status: 400, description: "Too many levels of symbolic links." },
  ETIMEDOUT: { status: 408, description: "The operation ran out of its time budget (for example a pathological regular expression)." },
  ENOSPC: { status: 507, description: "No space left on the device; nothing was changed." },
  EIO: { status: 500, description: "An input/output error from the underlying storage." },
  EUNAVAILABLE: { status: 503, description: "The backend (git, podman, a container) is not available." },
  E_ARCHIVE_CORRUPT: { status: 422, description: "The archive is not a valid ZIP file or is internally inconsistent." },
  E_ARCHIVE_ENTRY: { status: 422, description: "An archive entry is refused: unsafe or invalid name, duplicate, symlink or special file." },
  E_ARCHIVE_LIMIT: { status: 413, description: "The archive exceeds a configured limit (entries, bytes, ratio, name length)." },
  E_ARCHIVE_UNSUPPORTED: { status: 422, description: "The archive uses a feature we do not support (encryption, compression method)." },
  E_ARCHIVE_CHECKSUM: { status: 422, description: "An entry's CRC-32, size or SHA-256 does not match its data." },
  E_ARCHIVE_MANIFEST: { status: 422, description: "The archive's manifest is missing or invalid." },
  E_SNAPSHOT: { status: 500, description: "A snapshot operation failed." },
  E_SNAPSHOT_CREATE: { status: 500, description: "A snapshot could not be created; the workspace is unchanged." },
  E_SNAPSHOT_RESTORE: { status: 500, description: "A snapshot could not be restored; the workspace is unchanged." },
  E_SNAPSHOT_NOT_FOUND: { status: 404, description: "The requested snapshot does not exist." },
  E_SNAPSHOT_INCOMPATIBLE: { status: 409, description: "The snapshot belongs to another kind of filesystem or workspace." },
  E_SESSION_LOAD: { status: 400, description: "A session snapshot file could not be loaded." },
  E_SOURCE_INVALID: { status: 400, description: "A source URL, object key, prefix or byte range is invalid (or the range lies past the end of the object)." },
  E_SOURCE_NOT_FOUND: { status: 404, description: "The object (or bucket, or folder) does not exist in the store." },
  E_SOURCE_FORBIDDEN: { status: 403, description: "The store refused access to the object (403, permissions, a symlink or special file in a local folder)." },
  E_SOURCE_CREDENTIALS_MISSING: { status: 401, description: "No credentials were found for the store (environment, shared config and profiles were tried)." },
  E_SOURCE_CREDENTIALS_EXPIRED: { status: 401, description: "The credentials for the store have expired; refresh them (for example `aws sso login`) and retry." },
  E_SOURCE_CREDENTIALS_INVALID: { status: 401, description: "The store rejected the credentials (unknown access key, wrong secret, bad signature)." },
  E_SOURCE_THROTTLED: { status: 503, description: "The store kept asking us to slow down (503/SlowDown, 429) after bounded retries with backoff." },
  E_SOURCE_CHANGED: { status: 409, description: "The object changed (its ETag) between two reads; reopen it. Bytes of two versions are never mixed." },
  E_SOURCE_TRUNCATED: { status: 502, description: "The store sent fewer bytes than it announced (a cut connection or a truncated object)." },
  E_SOURCE_UNREACHABLE: { status: 502, description: "The store could not be reached (connection refused or reset, unknown host)." },
  E_SOURCE_TIMEOUT: { status: 504, description: "The store did not answer within the time budget." },
  E_SOURCE_FAILED: { status: 502, description: "The store failed or answered something unusable (unexpected status, malformed listing, I/O error)." },
  E_SOURCE_LIMIT: { status: 413, description: "A read exceeds a configured limit (line length, read size)." },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Structured, serialisable context of an error (path, entry, limit…). */
export type ErrorData = Readonly<Record<string, unknown>>;

export interface SerializedError {
  name: string;
  code: ErrorCode;
  message: string;
  data: ErrorData;
}

/** Base of every error thrown by wink-debug. */
export class WinkError extends Error {
  readonly code: ErrorCode;
  readonly data: ErrorData;

  constructor(code: ErrorCode, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }

  toJSON(): SerializedError {
    return { name: this.name, code: this.code, message: this.message, data: this.data };
  }
}

// ---------------------------------------------------------------------------
// Filesystem errors: one class per POSIX-like code, each naming the path.

/** A filesystem operation failed; `path` is the path as the caller gave it. */
export class FilesystemError extends WinkError {
  get path(): string | undefined {
    return typeof this.data.path === "string" ? this.data.path : undefined;
  }
}

export class FileNotFoundError extends FilesystemError {
  constructor(path: string, message = `No such file or directory: ${path}`, data: ErrorData = {}) {
    super("ENOENT", message, { ...data, path });
  }
}

export class IsADirectoryError extends FilesystemError {
  constructor(path: string, message = `Is a directory: ${path}`, data: ErrorData = {}) {
    super("EISDIR", message, { ...data, path });
  }
}

export class NotADirectoryError extends FilesystemError {
  constructor(path: string, message = `Not a directory: ${path}`, data: ErrorData = {}) {
    super("ENOTDIR", message, { ...data, path });
  }
}

export class FileExistsError extends FilesystemError {
  constructor(path: string, message = `File exists: ${path}`, data: ErrorData = {}) {
    super("EEXIST", message, { ...data, path });
  }
}

export class DirectoryNotEmptyError extends FilesystemError {
  constructor(path: string, message = `Directory not empty: ${path}`, data: ErrorData = {}) {
    super("ENOTEMPTY", message, { ...data, path });
  }
}

export class PermissionDeniedError extends FilesystemError {
  constructor(path: string | undefined, message: string, data: ErrorData = {}) {
    super("EACCES", message, path === undefined ? data : { ...data, path });
  }
}

export class InvalidArgumentError extends FilesystemError {
  constructor(message: string, data: ErrorData = {}) {
    super("EINVAL", message, data);
  }
}

export class SymlinkLoopError extends FilesystemError {
  constructor(path: string, message = `Too many levels of symbolic links: ${path}`) {
    super("ELOOP", message, { path });
  }
}

export class OperationTimeoutError extends FilesystemError {
  constructor(message: string, data: ErrorData = {}) {
    super("ETIMEDOUT", message, data);
  }
}

export class NoSpaceError extends FilesystemError {
  constructor(path: string | undefined, message: string, data: ErrorData = {}) {
    super("ENOSPC", message, path === undefined ? data : { ...data, path });
  }
}

export class StorageIOError extends FilesystemError {
  constructor(path: string | undefined, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super("EIO", message, path === undefined ? data : { ...data, path }, options);
  }
}

export class BackendUnavailableError extends FilesystemError {
  constructor(message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super("EUNAVAILABLE", message, data, options);
  }
}

// ---------------------------------------------------------------------------
// Archive errors: `entry` in data names the offending archive entry, when there is one.

export type ArchiveErrorCode =
  | "E_ARCHIVE_CORRUPT"
  | "E_ARCHIVE_ENTRY"
  | "E_ARCHIVE_LIMIT"
  | "E_ARCHIVE_UNSUPPORTED"
  | "E_ARCHIVE_CHECKSUM"
  | "E_ARCHIVE_MANIFEST";

export class ArchiveError extends WinkError {
  constructor(code: ArchiveErrorCode, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(code, message, data, options);
  }

  /** The archive entry the error is about, if any. */
  get entry(): string | undefined {
    return typeof this.data.entry === "string" ? this.data.entry : undefined;
  }
}

// ---------------------------------------------------------------------------
// Snapshot errors.

export type SnapshotErrorCode =
  | "E_SNAPSHOT"
  | "E_SNAPSHOT_CREATE"
  | "E_SNAPSHOT_RESTORE"
  | "E_SNAPSHOT_NOT_FOUND"
  | "E_SNAPSHOT_INCOMPATIBLE";

export class SnapshotError extends WinkError {
  constructor(message: string, data: ErrorData = {}, options?: { cause?: unknown; code?: SnapshotErrorCode }) {
    super(options?.code ?? "E_SNAPSHOT", message, data, options);
  }
}

export class SnapshotCreationError extends SnapshotError {
  constructor(message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(message, data, { ...options, code: "E_SNAPSHOT_CREATE" });
  }
}

export class SnapshotRestoreError extends SnapshotError {
  constructor(message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(message, data, { ...options, code: "E_SNAPSHOT_RESTORE" });
  }
}

export class SnapshotNotFoundError extends SnapshotError {
  constructor(snapshotId: string, message = `Snapshot not found: ${snapshotId}`, data: ErrorData = {}) {
    super(message, { ...data, snapshotId }, { code: "E_SNAPSHOT_NOT_FOUND" });
  }
}

export class SnapshotIncompatibleError extends SnapshotError {
  constructor(message: string, data: ErrorData = {}) {
    super(message, data, { code: "E_SNAPSHOT_INCOMPATIBLE" });
  }
}

// ---------------------------------------------------------------------------
// Session file errors.

export class SessionLoadError extends WinkError {
  constructor(message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super("E_SESSION_LOAD", message, data, options);
  }
}

// ---------------------------------------------------------------------------
// Source errors (local folders, HTTP and S3 stores): `url` in data names the object or
// listing without credentials, `key` the object key relative to the source's root.

export type SourceErrorCode =
  | "E_SOURCE_INVALID"
  | "E_SOURCE_NOT_FOUND"
  | "E_SOURCE_FORBIDDEN"
  | "E_SOURCE_CREDENTIALS_MISSING"
  | "E_SOURCE_CREDENTIALS_EXPIRED"
  | "E_SOURCE_CREDENTIALS_INVALID"
  | "E_SOURCE_THROTTLED"
  | "E_SOURCE_CHANGED"
  | "E_SOURCE_TRUNCATED"
  | "E_SOURCE_UNREACHABLE"
  | "E_SOURCE_TIMEOUT"
  | "E_SOURCE_FAILED"
  | "E_SOURCE_LIMIT";

export class SourceError extends WinkError {
  constructor(code: SourceErrorCode, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(code, message, data, options);
  }

  /** The object or listing the error is about, as shown to people (never with credentials). */
  get url(): string | undefined {
    return typeof this.data.url === "string" ? this.data.url : undefined;
  }

  /** Whether trying the same request again may succeed (throttling, a dropped connection, 5xx). */
  get retryable(): boolean {
    return this.data.retryable === true;
  }
}

/** True when `error` is a WinkError with the given code (works across realms and JSON). */
export function hasErrorCode(error: unknown, code: ErrorCode): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
