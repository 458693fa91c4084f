/**
 * Grep acceleration for the host backend: ripgrep as a *prefilter*, never as the matcher.
 *
 * From the pattern we take a literal that every match must contain; `rg --fixed-strings
 * --files-with-matches` names the files that contain it, and the shared JS grep then searches
 * only those, in its own order, with its own semantics. Results stay identical as long as the
 * candidate set is a superset of the files JS grep would match, which holds by construction:
 * - the literal is either the whole pattern (a plain literal, `foo\.bar` → `foo.bar`) or a
 *   *required literal* of a regular expression (see `requiredLiteral` for the exact rules):
 *   rg never interprets a regex, so there are no dialect differences;
 * - with ignoreCase only printable-ASCII literals, where rg's Unicode case folding matches
 *   everything JS's `i` flag does, with or without `u` (and more);
 * - rg searches raw bytes (`--encoding none`, `--text`): a valid UTF-8 text contains the
 *   literal exactly when its bytes contain the literal's UTF-8 bytes; literals with control
 *   characters, line breaks, U+FEFF or lone surrogates are not accelerated;
 * - rg looks at every file (`--hidden --no-ignore --no-config`), follows no links; anything
 *   unusual (exit code 2, a timeout, rg missing) means "no prefilter" rather than a guess.
 * rg only ever produces names; contents are always read through the confined driver.
 */
import { execFile } from "node:child_process";

export interface GrepPrefilterQuery {
  /** The grep pattern as given to `Filesystem.grep`. */
  readonly pattern: string;
  readonly ignoreCase: boolean;
  /** Abort the prefilter (the caller then searches everything). */
  readonly signal?: AbortSignal;
  /** Give up (and search everything) after this long. */
  readonly timeoutMs?: number;
}

const REGEX_SYNTAX = /[\\^$.|?*+()[\]{}]/;
const ESCAPABLE = /\\([\\^$.|?*+()[\]{}/-])/g;
const UNSAFE_LITERAL = /[\u0000-\u001f\u007f\u2028\u2029\ufeff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The literal a pattern stands for, or null when it is a real regular expression (or a
 * literal we do not accelerate). `foo\.bar` → `foo.bar`; `(?i)` prefixes are not literals.
 */
export function literalOfPattern(pattern: string, ignoreCase: boolean): string | null {
  if (pattern.length === 0 || pattern.length > 1024) return null;
  const unescaped = pattern.replace(ESCAPABLE, "");
  if (REGEX_SYNTAX.test(unescaped)) return null;
  const literal = pattern.replace(ESCAPABLE, "$1");
  if (UNSAFE_LITERAL.test(literal) || LONE_SURROGATE.test(literal)) return null;
  if (ignoreCase && /[^\u0020-\u007e]/.test(literal)) return null;
  return literal;
}

/** Shorter literals filter too little to pay for spawning rg. */
const MIN_REQUIRED_LITERAL = 3;
/** The leading inline-flag group `compileGrepPattern` accepts (and strips). */
const INLINE_FLAGS = /^\(\?([imsx]+)\)/;
/** Escaped ASCII punctuation (and space) is the character itself in both dialects. */
const PUNCTUATION_ESCAPE = /^[ !-/:-@[-`{-~]$/;
const BRACE_QUANTIFIER = /\{\d+(?:,\d*)?\}/y;
/**
 * Escapes that stand for something other than one literal character, with their full
 * length. Only these exact shapes are skipped whole: skipping more (say `\k<a|b>` without
 * named groups, which is `k<a` or `b>`) could hide a `|` or a group.
 */
const LONG_ESCAPES = [/\\k<[\w$]+>/y, /\\[pP]\{[\w=]+\}/y, /\\u\{[0-9a-fA-F]+\}/y, /\\u[0-9a-fA-F]{4}/y, /\\x[0-9a-fA-F]{2}/y, /\\c[A-Za-z]/y, /\\\d+/y];

/** Length of the escape at `at` (a backslash) that is not a literal character. */
function escapeLength(source: string, at: number): number {
  for (const shape of LONG_ESCAPES) {
    shape.lastIndex = at;
    const found = shape.exec(source);
    if (found !== null) return found[0].length;
  }
  return 2;
}

/** Index just past the character class opening at `at`, or -1 when it never closes. */
function skipClass(source: string, at: number): number {
  // In JS (no `v` flag) a class ends at the first unescaped "]", even right after "[" or "[^".
  for (let i = at + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "]") return i + 1;
  }
  return -1;
}

/** Index just past the group opening at `at` (nesting, escapes and classes inside), or -1. */
function skipGroup(source: string, at: number): number {
  let depth = 0;
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") {
      const end = skipClass(source, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

/** Whether `c` may be part of a literal handed to rg (see the module comment). */
function isSafeLiteralChar(c: string, ignoreCase: boolean): boolean {
  if (ignoreCase) return c >= "\u0020" && c <= "\u007e";
  return !UNSAFE_LITERAL.test(c) && !/[\ud800-\udfff]/.test(c);
}

/**
 * A literal every match of the regular expression `source` (no inline-flag prefix) must
 * contain, or null when there is none we trust. Conservative by design:
 * - only the top-level sequence counts: a top-level `|` gives null; groups `( … )` (including
 *   lookarounds and non-capturing groups, skipped to their matching `)`) and classes `[ … ]`
 *   end the current run of literal characters;
 * - a literal character followed by any quantifier (`?`, `*`, `+`, `{…}`, even `+`/`{n,}`
 *   with n ≥ 1) is dropped and ends the run; so is a `{` that is not a quantifier;
 * - escaped ASCII punctuation (`\.`, `\\`, `\/`, `\-`, `\(`…) is that character; any other
 *   escape (`\d \w \s \b \n \t \xHH \uHHHH \cX \0 \1 \k<…> \p{…}`, every letter escape)
 *   ends the run, as do `.`, `^`, `$`, a stray `]` or `}`;
 * - characters that may not go to rg (control characters, line breaks, U+FEFF, any surrogate,
 *   so every non-BMP character; with ignoreCase anything but printable ASCII) end the run.
 * Without the `u` flag a literal character matches exactly its UTF-16 code unit (its case
 * variants under `i`), so a matching line contains the run, and its UTF-8 bytes the run's
 * bytes; `s` and `m` do not change that. The longest run wins if it has ≥ 3 characters.
 */
export function requiredLiteral(source: string, ignoreCase: boolean): string | null {
  if (source.length === 0 || source.length > 1024 || INLINE_FLAGS.test(source)) return null;
  let best = "";
  let run = "";
  const endRun = (): void => {
    if (run.length > best.length) best = run;
    run = "";
  };
  const quantified = (): void => {
    run = run.slice(0, -1);
    endRun();
  };
  for (let i = 0; i < source.length; ) {
    const c = source[i] as string;
    if (c === "|") return null;
    if (c === "(" || c === "[") {
      const end = c === "(" ? skipGroup(source, i) : skipClass(source, i);
      if (end < 0) return null;
      endRun();
      i = end;
    } else if (c === "?" || c === "*" || c === "+") {
      quantified();
      i++;
    } else if (c === "{") {
      quantified();
      BRACE_QUANTIFIER.lastIndex = i;
      i += BRACE_QUANTIFIER.exec(source)?.[0].length ?? 1;
    } else if (c === "\\") {
      const escaped = source[i + 1];
      if (escaped === undefined) return null;
      if (PUNCTUATION_ESCAPE.test(escaped)) {
        if (isSafeLiteralChar(escaped, ignoreCase)) run += escaped;
        else endRun();
        i += 2;
      } else {
        endRun();
        i += escapeLength(source, i);
      }
    } else if (c === ")") {
      return null;
    } else {
      if ("^$.]}".includes(c) || !isSafeLiteralChar(c, ignoreCase)) endRun();
      else run += c;
      i++;
    }
  }
  endRun();
  if (best.length < MIN_REQUIRED_LITERAL || UNSAFE_LITERAL.test(best) || LONE_SURROGATE.test(best)) return null;
  if (ignoreCase && /[^\u0020-\u007e]/.test(best)) return null;
  return best;
}

/** The literal rg searches for and its case rule (a leading `(?i)` turns ignoreCase on). */
export interface PrefilterLiteral {
  readonly literal: string;
  readonly ignoreCase: boolean;
}

/**
 * What rg prefilters `pattern` with: the pattern itself when it is a plain literal, else its
 * required literal; null when neither applies. A leading inline-flag group is resolved the
 * way `compileGrepPattern` does (callers usually pass the compiled source without it).
 */
export function prefilterLiteral(pattern: string, ignoreCase: boolean): PrefilterLiteral | null {
  let source = pattern;
  let caseless = ignoreCase;
  const inline = INLINE_FLAGS.exec(source);
  if (inline !== null) {
    const flags = inline[1] as string;
    if (flags.includes("x")) return null;
    if (flags.includes("i")) caseless = true;
    source = source.slice(inline[0].length);
  }
  const literal = literalOfPattern(source, caseless) ?? requiredLiteral(source, caseless);
  return literal === null ? null : { literal, ignoreCase: caseless };
}

let ripgrepAvailable: boolean | null = null;

/** Resolves to whether `rg` runs here (checked once). */
export function hasRipgrep(): Promise<boolean> {
  if (ripgrepAvailable !== null) return Promise.resolve(ripgrepAvailable);
  return new Promise((resolve) => {
    execFile("rg", ["--version"], { timeout: 5_000 }, (error) => {
      ripgrepAvailable = error === null;
      resolve(ripgrepAvailable);
    });
  });
}

/**
 * Paths (relative to `rootPath`, "/"-separated) of the files below `relDir` that may match
 * `query`, or null when the prefilter does not apply: then every file must be searched.
 */
export async function ripgrepCandidates(rootPath: string, relDir: string, query: GrepPrefilterQuery): Promise<ReadonlySet<string> | null> {
  const prefilter = prefilterLiteral(query.pattern, query.ignoreCase);
  if (prefilter === null || !(await hasRipgrep())) return null;
  const args = [
    "--files-with-matches",
    "--null",
    "--no-config",
    "--hidden",
    "--no-ignore",
    "--text",
    "--encoding",
    "none",
    "--fixed-strings",
    prefilter.ignoreCase ? "--ignore-case" : "--case-sensitive",
    "--no-messages",
    "-e",
    prefilter.literal,
    "--",
    relDir === "" ? "." : relDir,
  ];
  return new Promise((resolve) => {
    execFile(
      "rg",
      args,
      { cwd: rootPath, encoding: "buffer", maxBuffer: 256 * 1024 * 1024, timeout: query.timeoutMs ?? 0, ...(query.signal ? { signal: query.signal } : {}) },
      (error, stdout) => {
        // Exit 1 is "no file matched"; anything else unusual means we do not know.
        const code = error === null ? 0 : (error as { code?: unknown }).code;
        if (code !== 0 && code !== 1) return resolve(null);
        const found = new Set<string>();
        for (const raw of stdout.toString("utf8").split("\0")) {
          if (raw === "") continue;
          found.add(raw.startsWith("./") ? raw.slice(2) : raw);
        }
        resolve(found);
      },
    );
  });
}
