/**
 * Node errno codes → our error classes, naming the workspace path (never the host path).
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
  WinkError,
} from "../../../errors.js";
import { errnoCode } from "../../errno.js";
import { displayPath } from "../../paths.js";

/**
 * Translate a Node system error into a `FilesystemError` for `path` (a workspace path).
 * `action` names what we were doing ("write", "read"…) for the message. WinkErrors pass through.
 */
export function mapFsError(error: unknown, path: string, action: string): WinkError {
  if (error instanceof WinkError) return error;
  const code = errnoCode(error);
  const shown = displayPath(path === "" ? "." : path);
  const detail = error instanceof Error ? error.message : String(error);
  let mapped: FilesystemError;
  switch (code) {
    case "ENOENT":
      mapped = new FileNotFoundError(path);
      break;
    case "EEXIST":
      mapped = new FileExistsError(path);
      break;
    case "EISDIR":
      mapped = new IsADirectoryError(path);
      break;
    case "ENOTDIR":
      mapped = new NotADirectoryError(path);
      break;
    case "ENOTEMPTY":
      mapped = new DirectoryNotEmptyError(path);
      break;
    case "ELOOP":
      mapped = new SymlinkLoopError(path);
      break;
    case "EACCES":
    case "EPERM":
      mapped = new PermissionDeniedError(path, `Permission denied: cannot ${action} ${shown}`, { reason: "permission", errno: code });
      break;
    case "EROFS":
      mapped = new PermissionDeniedError(path, `Read-only file system: cannot ${action} ${shown}`, { reason: "read-only-fs", errno: code });
      break;
    case "ENOSPC":
    case "EDQUOT":
      mapped = new NoSpaceError(path, `No space left on device: cannot ${action} ${shown}`, { errno: code });
      break;
    case "ENAMETOOLONG":
      mapped = new InvalidArgumentError(`File name too long: ${shown}`, { path, reason: "name-too-long" });
      break;
    case "EMFILE":
    case "ENFILE":
      mapped = new BackendUnavailableError(`Too many open files: cannot ${action} ${shown}`, { path, errno: code });
      break;
    default:
      mapped = new StorageIOError(path, `I/O error (${code ?? "unknown"}): cannot ${action} ${shown}: ${detail}`, { errno: code ?? null }, { cause: error });
  }
  return mapped;
}
