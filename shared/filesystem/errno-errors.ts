/**
 * The one errno → error class table. The host backend meets errno codes as Node system
 * errors and the Podman backend as the exec helper's status lines; both name the same
 * failures, so both build their errors here and differ only in the words (a container has
 * no "device", and the exec helper says which path component failed).
 */
import {
  BackendUnavailableError,
  DirectoryNotEmptyError,
  FileExistsError,
  FileNotFoundError,
  type FilesystemError,
  InvalidArgumentError,
  IsADirectoryError,
  NoSpaceError,
  NotADirectoryError,
  PermissionDeniedError,
  StorageIOError,
  SymlinkLoopError,
} from "../errors.js";
import type { ErrorData } from "../errors.js";
import { displayPath } from "./paths.js";

export interface ErrnoErrorOptions {
  /** What was attempted ("read", "write"…), for the default messages. */
  readonly action: string;
  /** The message, when the caller knows better than the table's default. */
  readonly message?: string;
  /** Data the error carries beside the table's own (`reason`, `errno`…). */
  readonly data?: ErrorData;
  /** Where the work ran, for the words of the default messages (default "host"). */
  readonly place?: "host" | "container";
  readonly cause?: unknown;
}

/** The codes the table names (any other is a `StorageIOError`). */
export const NAMED_ERRNOS: ReadonlySet<string> = new Set(["ENOENT", "EEXIST", "EISDIR", "ENOTDIR", "ENOTEMPTY", "ELOOP", "EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "ENAMETOOLONG", "EINVAL", "EMFILE", "ENFILE"]);

/** The error for errno `code` (undefined: not an errno) about workspace path `path`. */
export function errnoError(code: string | undefined, path: string, options: ErrnoErrorOptions): FilesystemError {
  const { action, message } = options;
  const shown = displayPath(path === "" ? "." : path);
  const data = options.data ?? {};
  const inContainer = options.place === "container";
  switch (code) {
    case "ENOENT":
      return new FileNotFoundError(path, message, data);
    case "EEXIST":
      return new FileExistsError(path, message, data);
    case "EISDIR":
      return new IsADirectoryError(path, message, data);
    case "ENOTDIR":
      return new NotADirectoryError(path, message, data);
    case "ENOTEMPTY":
      return new DirectoryNotEmptyError(path, message, data);
    case "ELOOP":
      return new SymlinkLoopError(path, message);
    case "EACCES":
    case "EPERM":
      return new PermissionDeniedError(path, message ?? `Permission denied: cannot ${action} ${shown}`, { reason: "permission", errno: code, ...data });
    case "EROFS":
      return new PermissionDeniedError(path, message ?? `Read-only file system: cannot ${action} ${shown}`, { reason: "read-only-fs", errno: code, ...data });
    case "ENOSPC":
    case "EDQUOT":
      return new NoSpaceError(path, message ?? (inContainer ? `No space left in the container: cannot ${action} ${shown}; nothing was changed` : `No space left on device: cannot ${action} ${shown}`), { errno: code, ...data });
    case "ENAMETOOLONG":
      return new InvalidArgumentError(message ?? `File name too long: ${shown}`, { path, reason: "name-too-long", ...data });
    case "EINVAL":
      return new InvalidArgumentError(message ?? `Invalid ${action} request for ${shown}`, { path, ...data });
    case "EMFILE":
    case "ENFILE":
      return new BackendUnavailableError(message ?? `Too many open files: cannot ${action} ${shown}`, { path, errno: code, ...data });
    default:
      return new StorageIOError(path, message ?? `I/O error${inContainer ? " in the container" : ""} (${code ?? "unknown"}): cannot ${action} ${shown}`, { errno: code ?? null, ...data }, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
