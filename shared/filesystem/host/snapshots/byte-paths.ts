/**
 * Workspace paths as byte strings.
 *
 * A host directory can hold names that are not valid UTF-8 (an agent with a shell makes
 * them easily). Snapshots must round-trip them, so internally a path is a "byte string":
 * one JavaScript character per byte (latin1). Comparing two byte strings with `<` is the
 * bytewise order git uses for trees. Only the public API (diffs, messages) sees paths
 * decoded as UTF-8.
 */
import { Buffer } from "node:buffer";

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** A byte string for a UTF-8 (JavaScript) string, e.g. the workspace root. */
export function toBytePath(text: string): string {
  return ASCII_ONLY.test(text) ? text : Buffer.from(text, "utf8").toString("latin1");
}

/** True when a byte string is plain ASCII (then it is also its own UTF-8 and `fs` path). */
export function isAsciiBytePath(bytePath: string): boolean {
  return ASCII_ONLY.test(bytePath);
}

/** The argument for `fs` calls: plain strings when ASCII (fast), else the exact bytes. */
export function toFsPath(bytePath: string): string | Buffer {
  return ASCII_ONLY.test(bytePath) ? bytePath : Buffer.from(bytePath, "latin1");
}

/** UTF-8 decoding of a byte string for the public API and messages. */
export function toDisplayPath(bytePath: string): string {
  return ASCII_ONLY.test(bytePath) ? bytePath : Buffer.from(bytePath, "latin1").toString("utf8");
}

/** Join a root byte string and a relative byte path ("" is the root). */
export function joinBytePath(root: string, relative: string): string {
  if (relative === "") return root;
  return root.endsWith("/") ? root + relative : `${root}/${relative}`;
}

/** Parent of a relative byte path ("" for a top-level entry). */
export function parentBytePath(relative: string): string {
  const slash = relative.lastIndexOf("/");
  return slash < 0 ? "" : relative.slice(0, slash);
}

/**
 * C-style quoting as git's fast-import reads it: every path is quoted, so names with
 * spaces, quotes, newlines or leading dashes are never misread. Bytes ≥ 0x80 stay raw
 * (git unquotes them unchanged); control bytes become escapes.
 */
export function cQuote(bytePath: string): string {
  let out = '"';
  for (let i = 0; i < bytePath.length; i++) {
    const code = bytePath.charCodeAt(i);
    const ch = bytePath[i] as string;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Sort byte paths in git's bytewise order. */
export function compareBytePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
