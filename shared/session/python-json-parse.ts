/**
 * A lossless reader for the text Python's `json.dumps` writes.
 *
 * Python emits tokens JSON.parse refuses (`NaN`, `Infinity`, `-Infinity`) and integers of
 * any size, which JSON.parse would round. One linear pre-scan looks for those outside
 * strings; when none is present (the common case) the text goes to the native JSON.parse,
 * otherwise to the hand-written parser below, which keeps big integers exact as `bigint`
 * (and still lets JSON.parse unescape each string token). Both paths build the same
 * values, cap nesting depth, and treat `__proto__` as data.
 */
import { SessionLoadError } from "../errors.js";
import type { JsonArray, JsonObject, JsonValue } from "./json-value.js";
import { setOwnValue } from "./json-value.js";

/** Deepest nesting of arrays/objects accepted; deeper input is refused with a clear error. */
export const DEFAULT_MAX_JSON_DEPTH = 1000;

export interface PythonJsonParseOptions {
  /** Maximum nesting depth of arrays and objects (default {@link DEFAULT_MAX_JSON_DEPTH}). */
  maxDepth?: number;
}

/** Which parser a text needs, decided by {@link prescanJson}. */
export type JsonScanVerdict = "native" | "lossless" | "too-deep";

/**
 * Parses Python-JSON text. Throws {@link SessionLoadError} (code `E_SESSION_LOAD`, with
 * `data.column` 1-based and `data.reason`) on invalid text or nesting beyond `maxDepth`.
 */
export function parsePythonJson(text: string, options: PythonJsonParseOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const verdict = prescanJson(text, maxDepth);
  if (verdict === "native") {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      // Fall through: the lossless parser reports the error with a precise position.
    }
  }
  return parsePythonJsonLossless(text, options);
}

/** The hand-written parser alone (exported for tests and benchmarks). */
export function parsePythonJsonLossless(text: string, options: PythonJsonParseOptions = {}): JsonValue {
  return new LosslessParser(text, options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH).parseDocument();
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
// Integers of up to 15 digits are always safe; 16 digits or more may not be.
const MAX_ALWAYS_SAFE_DIGITS = 15;

/**
 * One pass over the text outside strings: finds barewords (`NaN`, `Infinity`), integer
 * literals long enough to be unsafe, and nesting deeper than `maxDepth`. Strings are
 * skipped with `indexOf`, so a 25 MB line of file contents costs little.
 */
export function prescanJson(text: string, maxDepth: number): JsonScanVerdict {
  const length = text.length;
  let depth = 0;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && isEscapedQuote(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return "lossless"; // unterminated: let the lossless parser explain
      i = end + 1;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return "too-deep";
      i++;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      i++;
    } else if (c >= 0x30 && c <= 0x39) {
      let end = i + 1;
      while (end < length && isDigit(text.charCodeAt(end))) end++;
      const next = end < length ? text.charCodeAt(end) : 0;
      if (next === 0x2e || next === 0x65 || next === 0x45) {
        // A float: JSON.parse reads it exactly as Python does, whatever its length.
        while (end < length && isNumberChar(text.charCodeAt(end))) end++;
      } else if (end - i > MAX_ALWAYS_SAFE_DIGITS) {
        return "lossless";
      }
      i = end;
    } else if (c === 0x4e || c === 0x49) {
      return "lossless"; // N(aN) or I(nfinity)
    } else {
      i++;
    }
  }
  return "native";
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isNumberChar(c: number): boolean {
  return isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

function isEscapedQuote(text: string, quoteIndex: number): boolean {
  let backslashes = 0;
  for (let j = quoteIndex - 1; j >= 0 && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const PLAIN_STRING_RUN = /[^"\\\u0000-\u001f]*/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t",
};

class LosslessParser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  parseDocument(): JsonValue {
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail(`unexpected ${this.describeHere()} after the JSON value`);
    return value;
  }

  private parseValue(depth: number): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: return this.parseObject(depth + 1);
      case 0x5b: return this.parseArray(depth + 1);
      case QUOTE: return this.parseString();
      case 0x74: return this.parseLiteral("true", true);
      case 0x66: return this.parseLiteral("false", false);
      case 0x6e: return this.parseLiteral("null", null);
      case 0x4e: return this.parseLiteral("NaN", Number.NaN);
      case 0x49: return this.parseLiteral("Infinity", Number.POSITIVE_INFINITY);
      default:
        if (c === 0x2d && this.text.startsWith("-Infinity", this.pos)) {
          return this.parseLiteral("-Infinity", Number.NEGATIVE_INFINITY);
        }
        if (c === 0x2d || isDigit(c)) return this.parseNumber();
        return this.fail(`expected a value, found ${this.describeHere()}`);
    }
  }

  private parseObject(depth: number): JsonObject {
    this.checkDepth(depth);
    const object: JsonObject = {};
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return object;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== QUOTE) this.fail(`expected a string key, found ${this.describeHere()}`);
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail(`expected ':' after an object key, found ${this.describeHere()}`);
      this.pos++;
      this.skipWhitespace();
      setOwnValue(object, key, this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x7d) {
        this.pos++;
        return object;
      }
      if (c !== 0x2c) this.fail(`expected ',' or '}' after an object value, found ${this.describeHere()}`);
      this.pos++;
      this.skipWhitespace();
    }
  }

  private parseArray(depth: number): JsonArray {
    this.checkDepth(depth);
    const array: JsonArray = [];
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return array;
    }
    for (;;) {
      array.push(this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x5d) {
        this.pos++;
        return array;
      }
      if (c !== 0x2c) this.fail(`expected ',' or ']' after an array element, found ${this.describeHere()}`);
      this.pos++;
      this.skipWhitespace();
    }
  }

  private parseString(): string {
    const { text } = this;
    const start = this.pos;
    this.pos++;
    let out = "";
    let tryNative = true;
    for (;;) {
      PLAIN_STRING_RUN.lastIndex = this.pos;
      PLAIN_STRING_RUN.test(text);
      const runEnd = PLAIN_STRING_RUN.lastIndex;
      if (runEnd > this.pos) out += text.slice(this.pos, runEnd);
      this.pos = runEnd;
      if (runEnd >= text.length) {
        this.pos = start;
        return this.fail("unterminated string");
      }
      const c = text.charCodeAt(runEnd);
      if (c === QUOTE) {
        this.pos++;
        return out;
      }
      if (c === BACKSLASH) {
        if (tryNative) {
          const unescaped = this.parseEscapedString(start);
          if (unescaped !== null) return unescaped;
          tryNative = false; // invalid token: walk it once, without retrying at every escape
        }
        out += this.parseEscape();
      } else {
        this.fail(`control character U+${c.toString(16).padStart(4, "0")} inside a string (it must be escaped)`);
      }
    }
  }

  /**
   * The rest of a string with escapes, unescaped by JSON.parse on the whole token (same
   * rules as ours, at native speed); null when the token is invalid, so that the caller
   * walks it and reports where.
   */
  private parseEscapedString(start: number): string | null {
    let end = this.text.indexOf('"', this.pos);
    while (end !== -1 && isEscapedQuote(this.text, end)) end = this.text.indexOf('"', end + 1);
    if (end === -1) return null;
    try {
      const value = JSON.parse(this.text.slice(start, end + 1)) as string;
      this.pos = end + 1;
      return value;
    } catch {
      return null;
    }
  }

  private parseEscape(): string {
    const letter = this.text.charAt(this.pos + 1);
    const simple = SIMPLE_ESCAPES[letter];
    if (simple !== undefined && Object.prototype.hasOwnProperty.call(SIMPLE_ESCAPES, letter)) {
      this.pos += 2;
      return simple;
    }
    if (letter === "u") {
      const hex = this.text.slice(this.pos + 2, this.pos + 6);
      if (!HEX4.test(hex)) this.fail("invalid \\u escape (expected four hex digits)");
      this.pos += 6;
      // Each \uXXXX is one UTF-16 code unit: pairs recombine, lone surrogates stay as they are.
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    return this.fail(`invalid escape '\\${letter}'`);
  }

  private parseNumber(): number | bigint {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail(`invalid number starting with ${this.describeHere()}`);
    const token = match[0];
    this.pos += token.length;
    if (match[1] !== undefined || match[2] !== undefined) return Number(token);
    const digits = token.charCodeAt(0) === 0x2d ? token.length - 1 : token.length;
    if (digits <= MAX_ALWAYS_SAFE_DIGITS) return Number(token);
    const exact = BigInt(token);
    return exact >= BigInt(Number.MIN_SAFE_INTEGER) && exact <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(token) : exact;
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`unexpected ${this.describeHere()}`);
    this.pos += word.length;
    return value;
  }

  private skipWhitespace(): void {
    const { text } = this;
    let c = text.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++this.pos);
  }

  private checkDepth(depth: number): void {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth} levels`);
  }

  private describeHere(): string {
    if (this.pos >= this.text.length) return "end of input";
    const code = this.text.codePointAt(this.pos) ?? 0;
    const printable = code > 0x20 && code < 0x7f;
    return printable ? `'${String.fromCodePoint(code)}'` : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  }

  private fail(reason: string): never {
    const column = this.pos + 1;
    throw new SessionLoadError(`Invalid JSON at column ${column}: ${reason}`, { column, reason });
  }
}
