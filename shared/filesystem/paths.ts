/**
 * Path rules shared by every backend, the archive reader and the viewer. Browser-safe.
 *
 * A workspace path is resolved in this order (see docs/filesystem.md for the rationale):
 * 1. It must be a string without NUL, control characters (C0, DEL, C1), bidi overrides,
 *    lone surrogates or backslashes, and must not start with a drive letter or UNC prefix
 *    → EINVAL. We never decode percent-escapes or NFKC-normalise: such names are literal.
 * 2. The mount point (e.g. "/workspace") is stripped at a segment boundary.
 * 3. A leading "/" is root-relative; empty and "." segments are dropped; ".." is resolved
 *    lexically. A ".." that would leave the root → EACCES "Path escapes root".
 * 4. OS limits for every path: 255 bytes per segment, 4,096 bytes in all → EINVAL.
 * 5. For paths being created (write, mkdir) also the protocol limits (depth 16, segment 80
 *    by default) and, unless allowed, no segment that some filesystem resolves to ".git"
 *    (`isGitMetadataSegment`) → EACCES.
 */
import { InvalidArgumentError, PermissionDeniedError } from "../errors.js";
import { MAX_PATH_DEPTH, MAX_SEGMENT_LENGTH, OS_MAX_PATH_BYTES, OS_MAX_SEGMENT_BYTES } from "./limits.js";

export { MAX_PATH_DEPTH, MAX_SEGMENT_LENGTH };

export interface PathLimits {
  readonly maxPathDepth: number;
  readonly maxSegmentLength: number;
}

const FORBIDDEN_CHARACTER = /[\u0000-\u001f\u007f-\u009f\\\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const DRIVE_OR_UNC = /^(?:[A-Za-z]:|\/\/[^/]|\\\\)/;

/** Describes why a name is refused, or null when it is acceptable as a path segment list. */
export function findForbiddenCharacter(path: string): string | null {
  const bad = FORBIDDEN_CHARACTER.exec(path);
  if (bad) {
    const ch = bad[0];
    if (ch === "\\") return "backslash";
    if (ch === "\u0000") return "NUL byte";
    return `control character U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  }
  if (LONE_SURROGATE.test(path)) return "lone surrogate (invalid Unicode)";
  return null;
}

/** Code points some filesystem drops from names (HFS+ ignores U+200C–U+200F and others): every default-ignorable one. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * True when a path segment names git metadata on some filesystem, so writing below it could
 * plant a repository configuration: the name is compared after the normalisations
 * filesystems apply — default-ignorable code points dropped (HFS+: `.git\u200c`), Unicode
 * NFC, an NTFS stream suffix (`.git::$INDEX_ALLOCATION`) and trailing dots and spaces
 * (NTFS: `.git.`, `.git `) removed, letter case folded — against `.git` and its 8.3 short
 * name `git~N` (NTFS). git's own `verify_path` refuses the same family.
 */
export function isGitMetadataSegment(segment: string): boolean {
  if (!/g/i.test(segment)) return false;
  let folded = segment.replace(IGNORABLE, "").normalize("NFC");
  const stream = folded.indexOf(":");
  if (stream !== -1) folded = folded.slice(0, stream);
  folded = folded.replace(/[. ]+$/, "").toLowerCase();
  return folded === ".git" || /^git~\d+$/.test(folded);
}

/** Printable form of a path for messages: control characters escaped, length capped. */
export function displayPath(path: string): string {
  const escaped = JSON.stringify(path).slice(1, -1);
  return escaped.length > 200 ? `${escaped.slice(0, 200)}…` : escaped;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * The original's clamping normaliser (conformance 3.14): "", "." and "/" become "";
 * surrounding whitespace and slashes go; "//" collapses; "." drops; ".." resolves, and a
 * ".." above the root is ignored. Use `resolveWorkspacePath` for protocol calls: it
 * refuses escapes instead of clamping them.
 */
export function normalizePathString(path: string): string {
  const segments: string[] = [];
  for (const segment of path.trim().split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return segments.join("/");
}

/** Alias of `normalizePathString`, under the original's name. */
export const normalizePath = normalizePathString;

/** Throws EINVAL when a normalised path is deeper or has longer segments than `limits`. */
export function validatePath(path: string, limits: PathLimits = { maxPathDepth: MAX_PATH_DEPTH, maxSegmentLength: MAX_SEGMENT_LENGTH }): void {
  if (path === "") return;
  const segments = path.split("/");
  if (segments.length > limits.maxPathDepth) {
    throw new InvalidArgumentError(`Path depth exceeds limit of ${limits.maxPathDepth} segments: ${displayPath(path)}`, {
      path,
      limit: limits.maxPathDepth,
      actual: segments.length,
    });
  }
  for (const segment of segments) {
    const length = codePointLength(segment);
    if (length > limits.maxSegmentLength) {
      throw new InvalidArgumentError(`Path segment exceeds limit of ${limits.maxSegmentLength} characters: ${displayPath(segment)}`, {
        path,
        limit: limits.maxSegmentLength,
        actual: length,
      });
    }
  }
}

/**
 * Strip a mount point ("/workspace") from the front of a path at a segment boundary:
 * "workspace/foo" → "foo", "workspace" → "", "workspacefoo/bar" unchanged.
 */
export function stripMountPoint(path: string, mountPoint: string | null | undefined): string {
  if (!mountPoint) return path;
  const mount = mountPoint.replace(/^\/+|\/+$/g, "");
  if (mount === "") return path;
  const bare = path.replace(/^\/+/, "");
  if (bare === mount) return "";
  if (bare.startsWith(`${mount}/`)) return bare.slice(mount.length + 1);
  return path;
}

export interface ResolveOptions {
  readonly mountPoint?: string | null;
  /** The path is about to be created: apply `limits` and the `.git` rule. */
  readonly forCreate?: boolean;
  readonly limits?: PathLimits;
  /** Allow creating paths with a `.git` segment (default false). */
  readonly allowGitMetadata?: boolean;
}

/**
 * Resolve a caller's path to the normalised, confined relative form every driver gets.
 * Throws EINVAL for malformed input and EACCES for escapes (rules in the module comment).
 */
export function resolveWorkspacePath(input: unknown, options: ResolveOptions = {}): string {
  if (typeof input !== "string") {
    throw new InvalidArgumentError(`Path must be a string, got ${input === null ? "null" : typeof input}`, { path: String(input) });
  }
  const forbidden = findForbiddenCharacter(input);
  if (forbidden !== null) {
    throw new InvalidArgumentError(`Invalid path (${forbidden}): ${displayPath(input)}`, { path: input, reason: forbidden });
  }
  if (DRIVE_OR_UNC.test(input)) {
    throw new InvalidArgumentError(`Invalid path (drive letter or network path): ${displayPath(input)}`, { path: input, reason: "drive" });
  }
  const stripped = stripMountPoint(input, options.mountPoint);
  const segments: string[] = [];
  for (const segment of stripped.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) {
        throw new PermissionDeniedError(input, `Path escapes root: ${displayPath(input)}`, { reason: "escape" });
      }
      segments.pop();
      continue;
    }
    if (DRIVE_OR_UNC.test(segment)) {
      throw new InvalidArgumentError(`Invalid path (drive letter): ${displayPath(input)}`, { path: input, reason: "drive" });
    }
    segments.push(segment);
  }
  const resolved = segments.join("/");
  if (options.forCreate) {
    // The protocol's own limits first: their messages are the ones callers match on.
    validatePath(resolved, options.limits);
    if (!options.allowGitMetadata && segments.some(isGitMetadataSegment)) {
      throw new PermissionDeniedError(input, `Refusing to write git metadata path: ${displayPath(input)}`, { reason: "git-metadata" });
    }
  }
  for (const segment of segments) {
    if (utf8Length(segment) > OS_MAX_SEGMENT_BYTES) {
      throw new InvalidArgumentError(`Path segment longer than ${OS_MAX_SEGMENT_BYTES} bytes: ${displayPath(input)}`, {
        path: input,
        reason: "segment-too-long",
      });
    }
  }
  if (utf8Length(resolved) > OS_MAX_PATH_BYTES) {
    throw new InvalidArgumentError(`Path longer than ${OS_MAX_PATH_BYTES} bytes`, { path: input, reason: "path-too-long" });
  }
  return resolved;
}

/** Parent of a normalised path ("" for top-level entries and the root). */
export function parentPath(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

/** Last segment of a normalised path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Join normalised relative paths. */
export function joinPath(base: string, name: string): string {
  if (base === "") return name;
  if (name === "") return base;
  return `${base}/${name}`;
}

/** True when `path` is `ancestor` or lies below it (segment-aware; "" is everything's ancestor). */
export function isWithin(path: string, ancestor: string): boolean {
  return ancestor === "" || path === ancestor || path.startsWith(`${ancestor}/`);
}

/** Path of `path` relative to `ancestor` (which must contain it). */
export function relativeTo(path: string, ancestor: string): string {
  if (ancestor === "") return path;
  return path === ancestor ? "" : path.slice(ancestor.length + 1);
}

/** Total order used for every sorted listing: by UTF-16 code units, like JavaScript's default sort. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
