/**
 * Small pieces the route modules share: reading the selector from a query, checking a
 * workspace path parameter, formatting times.
 */
import { resolveWorkspacePath } from "../../shared/filesystem/paths.js";
import { badRequest } from "../errors.js";
import type { SnapshotSelector } from "../library/viewer-state.js";

/** The snapshot selector of a query (`file`, `line`, `session`). */
export function selectorOf(query: { file?: string | undefined; line?: number | undefined; session?: string | undefined }): SnapshotSelector {
  return { file: query.file, line: query.line, session: query.session };
}

/** The base or target selector of a diff query. */
export function sideSelector(query: Record<string, unknown>, side: "base" | "target"): SnapshotSelector | null {
  const file = query[`${side}_file`];
  const line = query[`${side}_line`];
  const session = query[`${side}_session`];
  if (file === undefined && line === undefined && session === undefined) return null;
  return {
    file: typeof file === "string" ? file : undefined,
    line: typeof line === "number" ? line : undefined,
    session: typeof session === "string" ? session : undefined,
  };
}

/**
 * A workspace-relative file path from a request: `..` segments are refused outright (not
 * resolved), as are NUL, control characters, drive letters and backslashes.
 */
export function workspacePath(input: string): string {
  if (input.split(/[\\/]/).includes("..")) throw badRequest(`Path must not contain '..' segments: ${JSON.stringify(input.slice(0, 200))}`);
  if (input.includes("\\")) throw badRequest(`Path must use '/' separators: ${JSON.stringify(input.slice(0, 200))}`);
  const resolved = resolveWorkspacePath(input);
  if (resolved === "") throw badRequest("Path names the workspace root, not a file");
  return resolved;
}

/** Milliseconds since the epoch as ISO-8601 (UTC). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
