/**
 * What a search looks for: a case-insensitive substring (the default, which no input can
 * make slow), or a regular expression. Regular expressions are compiled by the caller's
 * `compile` so the server can insist on V8's linear-time engine (see
 * `server/library/linear-regex.ts`); the browser compiles them as usual.
 */
import { InvalidArgumentError } from "../errors.js";

export interface TextMatch {
  readonly index: number;
  readonly length: number;
}

export interface TextMatcher {
  readonly regex: boolean;
  /** How many strings a regular expression was run on only in part (see MAX_REGEX_INPUT). */
  readonly clippedInputs: number;
  /** The first match in `text`, or null. */
  first(text: string): TextMatch | null;
  /** Matches in `text`, one per line at most, with their 0-based line, in order, up to `max`. */
  lines(text: string, max: number): { line: number; lineStart: number; lineText: string; match: TextMatch }[];
}

/**
 * The most characters one regular expression match runs on. V8's linear engine costs about
 * 1 µs a character and grows faster than linearly past a few hundred KiB (a 4 MiB line of
 * spaces took 14 s for `\s*#?\s*$`), and one call cannot be interrupted: a longer string is
 * searched in its first 64 KiB (tens of milliseconds) and the search says it is partial.
 */
export const MAX_REGEX_INPUT = 64 * 1024;

/** The matcher for `query`; `regex` compiles it with `compile` (InvalidArgumentError when it does not). */
export function createMatcher(query: string, options: { regex?: boolean; compile?: (source: string) => RegExp } = {}): TextMatcher {
  if (options.regex === true) {
    let pattern: RegExp;
    try {
      pattern = (options.compile ?? ((source: string) => new RegExp(source)))(query);
    } catch (error) {
      const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : String(error);
      throw new InvalidArgumentError(`Invalid regex: ${reason}`, { pattern: query.slice(0, 200) });
    }
    let clippedInputs = 0;
    const first = (text: string): TextMatch | null => {
      pattern.lastIndex = 0;
      const clipped = text.length > MAX_REGEX_INPUT;
      if (clipped) clippedInputs += 1;
      const found = pattern.exec(clipped ? text.slice(0, MAX_REGEX_INPUT) : text);
      // An empty match says nothing: look for a real one.
      if (found === null || found[0].length === 0) return null;
      // A match that reaches the cut may only exist because of it (`$`, a greedy run).
      if (clipped && found.index + found[0].length === MAX_REGEX_INPUT) return null;
      return { index: found.index, length: found[0].length };
    };
    return {
      regex: true,
      get clippedInputs() {
        return clippedInputs;
      },
      first,
      lines(text, max) {
        const result: ReturnType<TextMatcher["lines"]> = [];
        let line = 0;
        for (let start = 0; start <= text.length && result.length < max; line++) {
          const newline = text.indexOf("\n", start);
          const end = newline === -1 ? text.length : newline;
          const lineText = text.slice(start, end);
          const match = first(lineText);
          if (match !== null) result.push({ line, lineStart: start, lineText, match });
          if (newline === -1) break;
          start = newline + 1;
        }
        return result;
      },
    };
  }
  const needle = query.toLowerCase();
  return {
    regex: false,
    clippedInputs: 0,
    first(text) {
      if (needle === "") return null;
      const at = text.toLowerCase().indexOf(needle);
      return at === -1 ? null : { index: at, length: needle.length };
    },
    lines(text, max) {
      const result: ReturnType<TextMatcher["lines"]> = [];
      if (needle === "") return result;
      const lower = text.toLowerCase();
      // toLowerCase keeps offsets for almost all text; when it does not, search the original case.
      const haystack = lower.length === text.length ? lower : text;
      let line = 0;
      let lineStart = 0;
      let lastLine = -1;
      for (let at = haystack.indexOf(needle); at !== -1 && result.length < max; at = haystack.indexOf(needle, at + needle.length)) {
        for (let newline = text.indexOf("\n", lineStart); newline !== -1 && newline < at; newline = text.indexOf("\n", newline + 1)) {
          line += 1;
          lineStart = newline + 1;
        }
        if (line === lastLine) continue;
        lastLine = line;
        const lineEnd = text.indexOf("\n", at);
        result.push({ line, lineStart, lineText: text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd), match: { index: at - lineStart, length: needle.length } });
      }
      return result;
    },
  };
}
