/**
 * Node errno codes → our error classes, naming the workspace path (never the host path).
 */
import { WinkError } from "../../../errors.js";
import { errnoCode } from "../../errno.js";
import { NAMED_ERRNOS, errnoError } from "../../errno-errors.js";
import { displayPath } from "../../paths.js";

/**
 * Translate a Node system error into a `FilesystemError` for `path` (a workspace path).
 * `action` names what we were doing ("write", "read"…) for the message. WinkErrors pass through.
 */
export function mapFsError(error: unknown, path: string, action: string): WinkError {
  if (error instanceof WinkError) return error;
  const code = errnoCode(error);
  // An errno the table does not name keeps Node's own words: they are all there is to go on.
  const detail = error instanceof Error ? error.message : String(error);
  const unknown = `I/O error (${code ?? "unknown"}): cannot ${action} ${displayPath(path === "" ? "." : path)}: ${detail}`;
  // EINVAL from a host syscall is the host's complaint (a rename into itself…), not a bad argument of the caller's.
  const named = code !== undefined && code !== "EINVAL" && NAMED_ERRNOS.has(code);
  return named ? errnoError(code, path, { action, cause: error }) : errnoError(undefined, path, { action, cause: error, message: unknown, data: { errno: code ?? null } });
}
