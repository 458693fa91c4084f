/**
 * A unified diff as text (`git diff` output, e.g. a debug bundle's `environment/git.diff`)
 * split into files with their hunks in the API's shape, so the diff components that draw
 * `/api/diff/file` answers draw it too. Browser-safe (jsdiff's `parsePatch`).
 */
import { parsePatch } from "diff";
import { toHunkView } from "./text-diff.js";
import type { HunkView } from "./types.js";

export interface UnifiedDiffFile {
  /** The file's path (the new name; the old one for a deletion), without git's `a/`/`b/` prefix. */
  path: string;
  /** The old path when the file was renamed, else null. */
  old_path: string | null;
  status: "added" | "deleted" | "modified" | "renamed";
  hunks: HunkView[];
}

const DEV_NULL = "/dev/null";

function stripPrefix(name: string | undefined, prefix: "a/" | "b/"): string | null {
  if (name === undefined || name === "" || name === DEV_NULL) return null;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The files of a unified diff; throws when the text is not one (the caller shows it as text). */
export function parseUnifiedDiff(text: string): UnifiedDiffFile[] {
  return parsePatch(text)
    .filter((patch) => patch.hunks.length > 0 || patch.oldFileName !== undefined || patch.newFileName !== undefined)
    .map((patch) => {
      const oldPath = stripPrefix(patch.oldFileName, "a/");
      const newPath = stripPrefix(patch.newFileName, "b/");
      const status = oldPath === null ? "added" : newPath === null ? "deleted" : oldPath !== newPath ? "renamed" : "modified";
      return { path: newPath ?? oldPath ?? "(unnamed)", old_path: status === "renamed" ? oldPath : null, status, hunks: patch.hunks.map(toHunkView) };
    });
}
