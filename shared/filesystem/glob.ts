/**
 * Glob patterns: which files `glob()` returns and grep's `glob` filter keeps, the same on
 * every backend. A pattern is matched against a file's whole path relative to the search
 * base, in one of two syntaxes:
 *
 * - `"fnmatch"` (the default): Python's `fnmatch`, as WINK matches, so prompts tuned on WINK
 *   find the same files — `*` crosses `/` (`*.py` finds Python files at every depth) and
 *   `**\/*.py` needs at least one directory. See `fnmatch.ts`.
 * - `"path"`: a path-aware matcher (also used for host-mount include/exclude lists), below.
 *
 * The path-aware syntax:
 * - `*` matches any run of characters except `/` (so `*.txt` matches only top-level files;
 *   write `**\/*.txt` for every depth);
 * - `**` as a whole segment matches zero or more segments (`src/**` matches everything
 *   below `src`, `**\/test_*.py` matches at any depth); elsewhere it acts like `*`;
 * - `?` matches one character except `/`;
 * - `[abc]`, `[a-z]`, `[!abc]` / `[^abc]` match one character of (or not of) a set;
 * - `{a,b}` matches either alternative (nesting allowed);
 * - `\x` matches `x` literally;
 * - dot files are ordinary: `*` matches `.env`, `**` descends into `.github`.
 * Matching is case-sensitive. Only files are ever returned by `glob()`.
 */
import { InvalidArgumentError } from "../errors.js";
import { compileFnmatch, fnmatchLiteralDirectory } from "./fnmatch.js";

const MAX_GLOB_LENGTH = 1_024;

/** How a glob pattern is read: Python's `fnmatch` (default, as WINK) or path-aware. */
export type GlobSyntax = "fnmatch" | "path";

export const GLOB_SYNTAXES: readonly GlobSyntax[] = ["fnmatch", "path"];

function checkPattern(pattern: unknown): asserts pattern is string {
  if (typeof pattern !== "string" || pattern.length === 0) {
    throw new InvalidArgumentError("Glob pattern must be a non-empty string", { pattern: String(pattern) });
  }
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw new InvalidArgumentError(`Glob pattern longer than ${MAX_GLOB_LENGTH} characters`, { pattern: pattern.slice(0, 100) });
  }
}

function escapeRegex(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}

/** Compile a path-aware glob to an anchored RegExp over relative POSIX paths. Throws EINVAL when malformed. */
export function compileGlob(pattern: string): RegExp {
  checkPattern(pattern);
  // A leading "./" or "/" means "relative to the base", which every pattern already is.
  let source = pattern.replace(/^(?:\.\/|\/)+/, "");
  if (source === "") source = "**";
  let out = "";
  let braceDepth = 0;
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === "\\") {
      const next = source[i + 1];
      if (next === undefined) throw new InvalidArgumentError(`Glob pattern ends with a backslash: ${pattern}`, { pattern });
      out += escapeRegex(next);
      i += 2;
      continue;
    }
    if (ch === "*") {
      if (source[i + 1] === "*") {
        const atSegmentStart = i === 0 || source[i - 1] === "/";
        let j = i;
        while (source[j] === "*") j++;
        const atSegmentEnd = j === source.length || source[j] === "/";
        if (atSegmentStart && atSegmentEnd) {
          if (j === source.length) {
            // Trailing "**": everything below ("src/**" needs at least one more segment).
            out += i === 0 ? ".*" : ".+";
          } else {
            // "**/" : zero or more whole segments.
            out += "(?:[^/]*(?:\\/[^/]*)*\\/)?";
            j++; // consume the "/"
          }
          i = j;
          continue;
        }
        out += "[^/]*";
        i = j;
        continue;
      }
      out += "[^/]*";
      i++;
      continue;
    }
    if (ch === "?") {
      out += "[^/]";
      i++;
      continue;
    }
    if (ch === "[") {
      const close = findClassEnd(source, i);
      if (close === -1) {
        out += "\\[";
        i++;
        continue;
      }
      let body = source.slice(i + 1, close);
      let negate = false;
      if (body.startsWith("!") || body.startsWith("^")) {
        negate = true;
        body = body.slice(1);
      }
      const cls = body.replace(/\\(.)/g, "$1").replace(/[\]\\^]/g, (m) => `\\${m}`);
      out += negate ? `[^/${cls}]` : `[${cls}]`;
      i = close + 1;
      continue;
    }
    if (ch === "{") {
      braceDepth++;
      out += "(?:";
      i++;
      continue;
    }
    if (ch === "}" && braceDepth > 0) {
      braceDepth--;
      out += ")";
      i++;
      continue;
    }
    if (ch === "," && braceDepth > 0) {
      out += "|";
      i++;
      continue;
    }
    out += escapeRegex(ch);
    i++;
  }
  if (braceDepth !== 0) throw new InvalidArgumentError(`Unbalanced braces in glob pattern: ${pattern}`, { pattern });
  try {
    return new RegExp(`^${out}$`, "s");
  } catch {
    throw new InvalidArgumentError(`Invalid glob pattern: ${pattern}`, { pattern });
  }
}

function findClassEnd(source: string, open: number): number {
  let j = open + 1;
  if (source[j] === "!" || source[j] === "^") j++;
  if (source[j] === "]") j++; // a leading "]" is literal
  for (; j < source.length; j++) {
    if (source[j] === "\\") {
      j++;
      continue;
    }
    if (source[j] === "]") return j;
    if (source[j] === "/") return -1;
  }
  return -1;
}

/** A compiled glob with a `test(relativePath)` method. */
export interface GlobMatcher {
  readonly pattern: string;
  readonly syntax: GlobSyntax;
  test(relativePath: string): boolean;
  /**
   * The directory (relative to the base) all matches lie in, from the pattern's literal
   * start ("src/**\/*.ts" → "src"; "" for anywhere); null when nothing can match.
   */
  readonly literalDirectory: string | null;
}

/** Compile `pattern` in `syntax` (default `"fnmatch"`, WINK's). Throws EINVAL when malformed. */
export function globMatcher(pattern: string, options: { syntax?: GlobSyntax } = {}): GlobMatcher {
  const syntax = options.syntax ?? "fnmatch";
  if (!GLOB_SYNTAXES.includes(syntax)) {
    throw new InvalidArgumentError(`Unknown glob syntax ${JSON.stringify(syntax)}: expected "fnmatch" or "path"`, { syntax: String(syntax) });
  }
  checkPattern(pattern);
  if (syntax === "fnmatch") {
    const matcher = compileFnmatch(pattern);
    return { pattern, syntax, test: (relativePath) => matcher.test(relativePath), literalDirectory: fnmatchLiteralDirectory(pattern) };
  }
  const regex = compileGlob(pattern);
  return { pattern, syntax, test: (relativePath) => regex.test(relativePath), literalDirectory: pathLiteralDirectory(pattern) };
}

/** Literal leading directories of a path-aware pattern ("src/**\/*.ts" → "src"). */
function pathLiteralDirectory(pattern: string): string {
  const literal: string[] = [];
  const segments = pattern.replace(/^(?:\.\/|\/)+/, "").split("/");
  for (const segment of segments.slice(0, -1)) {
    if (/[*?[\]{}\\]/.test(segment) || segment === "." || segment === ".." || segment === "") break;
    literal.push(segment);
  }
  return literal.join("/");
}
