/**
 * Failure signatures: what makes two failures "the same failure" across runs. A signature is
 * the tool (or a run error's type) and the message as a template, its varying parts (numbers,
 * ids, quoted strings, paths, times, URLs) replaced by placeholders, so "File not found:
 * src/a.py" in one run and "File not found: lib/b.ts" in another are one group. The rules are
 * docs/eval.md's, in its order; they read nothing but the text, so the same runs give the same
 * groups on any machine.
 *
 * Browser-safe: the CLI and (later) the eval view group with the same code.
 */

/** Characters of a message templated (messages are clipped by the run model already; this bounds the work). */
export const MAX_TEMPLATED_CHARS = 2_000;
/** Characters of a template kept (then `…`): the start of a message says what failed, its tail is output. */
export const MAX_TEMPLATE_CHARS = 200;

export const PLACEHOLDERS = { string: "<str>", url: "<url>", time: "<time>", path: "<path>", id: "<id>", number: "<n>" } as const;

/** Prefixes that tool-call and message ids carry (OpenAI `call_`, Anthropic `toolu_`, Codex `cmd_`…). */
const ID_PREFIXES = ["call", "toolu", "cmd", "fc", "msg", "resp", "chatcmpl", "item", "req", "run", "evt", "ses", "sess"];

interface Rule {
  /** Sticky: tried at one position only. */
  readonly pattern: RegExp;
  /** What the match becomes, or null when the match is not this rule's after all. */
  readonly emit: (match: string) => string | null;
}

/** Trailing punctuation ends a sentence rather than a path or a URL: it stays in the template. */
function keepingTrailing(placeholder: string, match: string, trailing: RegExp): string {
  const tail = trailing.exec(match)?.[0] ?? "";
  return placeholder + tail;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ID_PREFIX = new RegExp(`^(?:${ID_PREFIXES.join("|")})[_-][A-Za-z0-9_-]*\\d`, "i");

/** Whether a word (letters, digits, `_`, `-`) is an id rather than a word of the message. */
function isIdWord(word: string): boolean {
  if (UUID.test(word)) return true;
  if (ID_PREFIX.test(word)) return true;
  const digits = word.replace(/\D/g, "").length;
  const letters = word.replace(/[^A-Za-z]/g, "").length;
  // Hex (a commit, a digest, a short id): 8 or more hex digits, some of them letters and some digits.
  if (/^[0-9a-f]{8,}$/i.test(word) && digits > 0 && letters > 0) return true;
  // A generated token (base62 ids, random names): long, letters and several digits.
  return word.length >= 12 && digits >= 3 && letters > 0;
}

/** Path characters: what a segment of a path or a file name is made of. */
const SEGMENT = String.raw`[\p{L}\p{N}_.@+~-]`;

const RULES: readonly Rule[] = [
  // A quoted string, whatever it holds: 'x', "x", `x`, ‘x’, “x”.
  { pattern: /'[^']{0,300}'|"[^"]{0,300}"|`[^`]{0,300}`|‘[^’]{0,300}’|“[^”]{0,300}”/y, emit: () => PLACEHOLDERS.string },
  { pattern: /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s'"<>]+/y, emit: (m) => keepingTrailing(PLACEHOLDERS.url, m, /[.,;:!?)\]]*$/) },
  // An ISO 8601 date or date-time, or a clock time.
  { pattern: /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w])|\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\w:])/y, emit: () => PLACEHOLDERS.time },
  // A path: path characters with a `/` or `\` (a drive, `~`, `.` or `..` before it allowed), then a line and column.
  {
    pattern: new RegExp(String.raw`(?:[A-Za-z]:)?${SEGMENT}*(?:[\\/]${SEGMENT}+)+[\\/]?(?::\d+){0,2}`, "uy"),
    // Digits and slashes only (3/10, 2026/11/26) are numbers, not a path.
    emit: (m) => (/[\p{L}.~]/u.test(m.replace(/:\d+/g, "")) ? keepingTrailing(PLACEHOLDERS.path, m, /[.-]*$/) : m.replace(/\d+/g, PLACEHOLDERS.number)),
  },
  // A file name: words joined by dots, ending in an extension that starts with a letter ("e.g" and "i.e" are not files).
  {
    pattern: /[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\p{L}\p{N}_-]|\.[\p{L}\p{N}_])(?::\d+){0,2}/uy,
    emit: (m) => (/^[A-Za-z]\.[A-Za-z]$/.test(m) ? null : PLACEHOLDERS.path),
  },
  { pattern: /[A-Za-z0-9_-]+/y, emit: (m) => (isIdWord(m) ? PLACEHOLDERS.id : null) },
];

/**
 * A number: hex (0x1f), or digits with `.` or `,` groups (1,024 and 0.08 are one number
 * each); a unit after it stays. It also starts after a hyphen (-3, worker-7, utf-8), where
 * the other rules do not.
 */
const NUMBER: Rule = { pattern: /0x[0-9a-f]+(?![\w])|\d+(?:[.,]\d+)*/iy, emit: () => PLACEHOLDERS.number };
const AT_TOKEN_START: readonly Rule[] = [...RULES, NUMBER];
const AFTER_HYPHEN: readonly Rule[] = [NUMBER];

const TOKEN_CHARACTER = /[\p{L}\p{N}_.@+~\\/-]/u;

/** A character after which a rule may start: not inside a word or a path. */
function startsToken(text: string, at: number): boolean {
  return at === 0 || !TOKEN_CHARACTER.test(text[at - 1] as string);
}

/** Cuts `text` to `max` UTF-16 units without splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] as string) ? max - 1 : max;
  return text.slice(0, end);
}

/**
 * The message as a template: whitespace collapsed, then each varying part a placeholder
 * (`<str>`, `<url>`, `<time>`, `<path>`, `<id>`, `<n>`), the call's own id wherever it
 * appears included; at most {@link MAX_TEMPLATE_CHARS} characters (then `…`).
 */
export function messageTemplate(message: string, callId: string | null = null): string {
  const text = cut(message.replace(/\s+/g, " ").trim(), MAX_TEMPLATED_CHARS);
  let out = "";
  let at = 0;
  scan: while (at < text.length) {
    // Rules start where a word or a path does (so the apostrophe of "doesn't" opens no string).
    const start = startsToken(text, at);
    if (start || text[at - 1] === "-") {
      if (start && callId !== null && callId !== "" && text.startsWith(callId, at)) {
        out += PLACEHOLDERS.id;
        at += callId.length;
        continue;
      }
      for (const rule of start ? AT_TOKEN_START : AFTER_HYPHEN) {
        rule.pattern.lastIndex = at;
        const match = rule.pattern.exec(text);
        if (match === null || match[0] === "") continue;
        const emitted = rule.emit(match[0]);
        if (emitted === null) continue;
        out += emitted;
        at += match[0].length;
        continue scan;
      }
    }
    out += text[at];
    at += 1;
  }
  return out.length > MAX_TEMPLATE_CHARS ? `${cut(out, MAX_TEMPLATE_CHARS - 1)}…` : out;
}

/** A failed call's signature: `<tool>: <template>`. */
export function callSignature(tool: string, message: string, callId: string | null = null): string {
  return `${tool}: ${messageTemplate(message, callId)}`;
}

/** A run error's signature: `run error <type>: <template>` (`run error: <template>` when it names no type). */
export function runErrorSignature(errorType: string | null, message: string): string {
  return `run error${errorType === null || errorType === "" ? "" : ` ${errorType}`}: ${messageTemplate(message)}`;
}
