/**
 * Grep acceleration for the host backend: ripgrep as a *prefilter*, never as the matcher.
 *
 * For a pattern that is a plain literal, `rg --files-with-matches` names the files that
 * contain it; the shared JS grep then searches only those, in its own order, with its own
 * semantics. Results stay identical as long as the candidate set is a superset of the files
 * JS grep would match, which holds by construction:
 * - only literals qualify (no regex-dialect differences); with ignoreCase only ASCII
 *   literals, where rg's Unicode case folding matches everything JS's `i` flag does (and more);
 * - rg searches raw bytes (`--encoding none`, `--text`): a valid UTF-8 text contains the
 *   literal exactly when its bytes contain the literal's UTF-8 bytes; literals with control
 *   characters, line breaks or U+FEFF are not accelerated;
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
  const literal = literalOfPattern(query.pattern, query.ignoreCase);
  if (literal === null || !(await hasRipgrep())) return null;
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
    query.ignoreCase ? "--ignore-case" : "--case-sensitive",
    "--no-messages",
    "-e",
    literal,
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
