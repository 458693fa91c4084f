/**
 * Python's `fnmatch.fnmatchcase`, the matcher WINK's `glob` and grep's file filter use, so a
 * pattern tuned on WINK finds the same files here. Browser-safe.
 *
 * The pattern is matched against the whole relative path:
 * - `*` matches any run of characters, `/` and leading dots included (`*.py` finds Python files
 *   at every depth; `**` is just two stars, so `**\/*.py` needs at least one `/`);
 * - `?` matches exactly one character (a `/` too);
 * - `[seq]` matches one character of `seq` (ranges like `a-z`), `[!seq]` one not in it; a `]`
 *   right after `[` or `[!` is literal; a `[` without a closing `]` is literal;
 * - everything else is literal: there are no braces and no escapes (`\` is an ordinary
 *   character), and matching is case-sensitive (POSIX `fnmatch`).
 *
 * `compileFnmatch` follows CPython 3.11's `fnmatch.translate` step by step — including its
 * treatment of empty and reversed ranges (`[z-a]` never matches) and of `-` at the edges of a
 * set — but matches without a regular expression: tokens over code points with one
 * backtracking point per `*`, so no pattern can make matching exponential.
 */
import { InvalidArgumentError } from "../errors.js";

/** One compiled pattern element; each element but STAR consumes exactly one code point. */
type Token =
  | { readonly kind: "literal"; readonly codePoint: number }
  | { readonly kind: "any" }
  | { readonly kind: "never" }
  | { readonly kind: "set"; readonly negate: boolean; readonly ranges: readonly (readonly [number, number])[] }
  | { readonly kind: "star" };

const STAR: Token = { kind: "star" };
const ANY: Token = { kind: "any" };
const NEVER: Token = { kind: "never" };

function codePointAt(text: string, index: number): number {
  return text.codePointAt(index) as number;
}

/**
 * The body of a Python regex character set as `fnmatch.translate` writes it (between `[`
 * and `]`), for the pattern's set from `open + 1` to `close` (exclusive). Mirrors the
 * CPython code, hyphen chunking included.
 */
function translateSetBody(pat: readonly string[], open: number, close: number): string {
  const slice = (from: number, to: number): string => pat.slice(from, to).join("");
  let i = open;
  let stuff = slice(i, close);
  if (!stuff.includes("-")) {
    stuff = stuff.replaceAll("\\", "\\\\");
  } else {
    const chunks: string[] = [];
    let k = pat[i] === "!" ? i + 2 : i + 1;
    for (;;) {
      k = pat.indexOf("-", k);
      if (k < 0 || k >= close) break;
      chunks.push(slice(i, k));
      i = k + 1;
      k = k + 3;
    }
    const chunk = slice(i, close);
    if (chunk !== "") chunks.push(chunk);
    else chunks[chunks.length - 1] += "-";
    // Remove empty ranges ("z-a"): CPython merges the neighbouring chunks.
    for (let j = chunks.length - 1; j > 0; j--) {
      const before = chunks[j - 1] as string;
      const after = chunks[j] as string;
      const last = Array.from(before).pop();
      const first = Array.from(after)[0];
      // CPython indexes these characters; an empty chunk there is its IndexError.
      if (last === undefined || first === undefined) throw new InvalidArgumentError(`Invalid glob pattern: ${pat.join("")}`, { pattern: pat.join("") });
      if (codePointAt(last, 0) > codePointAt(first, 0)) {
        chunks[j - 1] = Array.from(before).slice(0, -1).join("") + Array.from(after).slice(1).join("");
        chunks.splice(j, 1);
      }
    }
    stuff = chunks.map((part) => part.replaceAll("\\", "\\\\").replaceAll("-", "\\-")).join("-");
  }
  // Python escapes its set operators.
  return stuff.replace(/[&~|]/g, (ch) => `\\${ch}`);
}

/** The token Python's regex engine makes of `[stuff]` (as `fnmatch.translate` finishes it). */
function setToken(stuff: string, pattern: string): Token {
  if (stuff === "") return NEVER;
  if (stuff === "!") return ANY;
  const chars = Array.from(stuff);
  let negate = false;
  let at = 0;
  if (chars[0] === "!") {
    negate = true;
    at = 1;
  } else if (chars[0] === "^" || chars[0] === "[") {
    // Python writes "\^" / "\[": a literal, which the escape handling below gives.
    chars.unshift("\\");
  }
  const ranges: [number, number][] = [];
  // One set item the way `sre_parse` reads it: "\x" is a literal x, anything else itself.
  const item = (): number | null => {
    const ch = chars[at];
    if (ch === undefined) return null;
    if (ch === "\\") {
      const next = chars[at + 1];
      if (next === undefined) throw new InvalidArgumentError(`Invalid glob pattern: ${pattern}`, { pattern });
      at += 2;
      return codePointAt(next, 0);
    }
    at += 1;
    return codePointAt(ch, 0);
  };
  while (at < chars.length) {
    const low = item() as number;
    if (chars[at] === "-" && at + 1 < chars.length) {
      at += 1;
      const high = item() as number;
      if (high < low) throw new InvalidArgumentError(`Invalid glob pattern (bad character range): ${pattern}`, { pattern });
      ranges.push([low, high]);
    } else {
      ranges.push([low, low]);
    }
  }
  return { kind: "set", negate, ranges };
}

/** Tokens of `pattern`, as CPython 3.11's `fnmatch.translate` reads it. */
function tokenize(pattern: string): Token[] {
  const pat = Array.from(pattern);
  const tokens: Token[] = [];
  const n = pat.length;
  let i = 0;
  while (i < n) {
    const c = pat[i] as string;
    i += 1;
    if (c === "*") {
      if (tokens[tokens.length - 1] !== STAR) tokens.push(STAR);
    } else if (c === "?") {
      tokens.push(ANY);
    } else if (c === "[") {
      let j = i;
      if (j < n && pat[j] === "!") j += 1;
      if (j < n && pat[j] === "]") j += 1;
      while (j < n && pat[j] !== "]") j += 1;
      if (j >= n) {
        tokens.push({ kind: "literal", codePoint: 0x5b });
      } else {
        tokens.push(setToken(translateSetBody(pat, i, j), pattern));
        i = j + 1;
      }
    } else {
      tokens.push({ kind: "literal", codePoint: codePointAt(c, 0) });
    }
  }
  return tokens;
}

function matchesOne(token: Token, codePoint: number): boolean {
  switch (token.kind) {
    case "literal":
      return token.codePoint === codePoint;
    case "any":
      return true;
    case "never":
      return false;
    case "set": {
      const inside = token.ranges.some(([low, high]) => codePoint >= low && codePoint <= high);
      return inside !== token.negate;
    }
    default:
      return false;
  }
}

/** Whole-string match of `tokens` against the code points of `text` (classic star backtracking). */
function matchTokens(tokens: readonly Token[], text: readonly number[]): boolean {
  let t = 0;
  let p = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (t < text.length) {
    const token = tokens[p];
    if (token !== undefined && token.kind === "star") {
      starAt = p;
      p += 1;
      resumeAt = t;
    } else if (token !== undefined && matchesOne(token, text[t] as number)) {
      p += 1;
      t += 1;
    } else if (starAt !== -1) {
      p = starAt + 1;
      resumeAt += 1;
      t = resumeAt;
    } else {
      return false;
    }
  }
  while (p < tokens.length && (tokens[p] as Token).kind === "star") p += 1;
  return p === tokens.length;
}

export interface FnmatchMatcher {
  readonly pattern: string;
  /** True when `name` matches the whole pattern (Python's `fnmatch.fnmatchcase(name, pattern)`). */
  test(name: string): boolean;
}

/** Compile a pattern with Python's `fnmatch` semantics (see the module comment). */
export function compileFnmatch(pattern: string): FnmatchMatcher {
  const tokens = tokenize(pattern);
  return {
    pattern,
    test: (name) => matchTokens(tokens, Array.from(name, (ch) => codePointAt(ch, 0))),
  };
}

/** Python's `fnmatch.fnmatchcase(name, pattern)`. */
export function fnmatchCase(name: string, pattern: string): boolean {
  return compileFnmatch(pattern).test(name);
}

/**
 * The directory every match of `pattern` lies in: its literal characters before the first
 * `*`, `?` or `[`, up to the last `/` ("" when there is none). Null when no normalised
 * relative path can match (an empty, `.` or `..` segment in that literal part).
 */
export function fnmatchLiteralDirectory(pattern: string): string | null {
  const wildcard = pattern.search(/[*?[]/);
  const literal = wildcard === -1 ? pattern : pattern.slice(0, wildcard);
  const slash = literal.lastIndexOf("/");
  if (slash === -1) return "";
  const directory = literal.slice(0, slash);
  if (directory.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) return null;
  return directory;
}
