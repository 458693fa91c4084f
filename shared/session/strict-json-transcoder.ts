/**
 * Strict JSON written straight from a line's Python-JSON bytes, token by token, without
 * building the parsed tree: what `/api/raw` of a huge line answers. Parsing a 100 MiB line
 * held its bytes, its text and its tree at once, and writing the tree back its answer too
 * (issue 33: 6–9× the line in peak RSS); the transcoder holds the bytes and the answer's
 * chunks only.
 *
 * The output is byte for byte `toStrictJson(parsePythonJson(text))`: whitespace dropped,
 * strings re-escaped as `JSON.stringify` escapes them (`\/` and `\u00e9` written as
 * characters, escaped surrogate pairs as their UTF-8, lone surrogates as lowercase
 * `\udxxx`), numbers as the parsed number or bigint writes itself (`1.0` → `1`, `-0` → `0`,
 * `1e400` → the Infinity marker), `NaN`/`±Infinity` as `{"__float__": …}`.
 *
 * What a tree would change beyond that is left to the parser: {@link canTranscode} says
 * false (and {@link transcodeStrictJson} writes nothing) for any line that is not valid for the parser (its error comes from there), nests
 * deeper than the cap, or has an object whose keys a JavaScript object would reorder or
 * merge (a duplicate key, an array-index key such as `"7"` after a named key or a larger
 * index). Its bytes must be valid UTF-8 (checked by the caller, natively).
 */
import { DEFAULT_MAX_JSON_DEPTH } from "./python-json-parse.js";
import { FLOAT_MARKER_KEY } from "./strict-json.js";

export interface TranscodeOptions {
  /** Nesting cap, as in the parser (default 1000). */
  maxDepth?: number;
}

export interface TranscodeChunkOptions extends TranscodeOptions {
  /** Size of each chunk handed on (default 1 MiB); each is a fresh buffer of its own, safe to transfer. */
  chunkBytes?: number;
}

/**
 * True when {@link transcodeStrictJson} writes this line body (a JSON object, valid UTF-8)
 * exactly as the parser and `toStrictJson` would; false sends it to the parser.
 */
export function canTranscode(body: Uint8Array, options: TranscodeOptions = {}): boolean {
  return new Transcoder(body, options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH, null).run();
}

/**
 * Writes the strict JSON of a line body (a JSON object, valid UTF-8) in chunks of
 * `chunkBytes` (the last one shorter), once {@link canTranscode} has accepted it (a first
 * pass that writes nothing); false, having written nothing, when it goes to the parser.
 */
export function transcodeStrictJson(body: Uint8Array, onChunk: (chunk: Uint8Array) => void, options: TranscodeChunkOptions = {}): boolean {
  if (!canTranscode(body, options)) return false;
  const sink = new ChunkSink(options.chunkBytes ?? 1024 * 1024, onChunk);
  // The same walk over the same bytes: it cannot fail where the check did not.
  new Transcoder(body, options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH, sink).run();
  sink.end();
  return true;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const LETTER_U = 0x75;

// What the walker expects next.
const AFTER_VALUE = 0;
const VALUE = 1;
const VALUE_OR_CLOSE = 2;
const KEY = 3;
const KEY_OR_CLOSE = 4;

/** Escape letters JSON allows after a backslash, `u` aside. */
const SIMPLE_ESCAPE = new Uint8Array(128);
for (const letter of '"\\/bfnrt') SIMPLE_ESCAPE[letter.charCodeAt(0)] = 1;

/** How `JSON.stringify` writes the control characters that have a short escape. */
const SHORT_ESCAPE: Readonly<Record<number, number>> = { 0x08: 0x62, 0x09: 0x74, 0x0a: 0x6e, 0x0c: 0x66, 0x0d: 0x72 };

const HEX_DIGITS = "0123456789abcdef";
const MAX_ARRAY_INDEX = 2 ** 32 - 2;

const literal = (text: string): Uint8Array => new TextEncoder().encode(text);
const TRUE = literal("true");
const FALSE = literal("false");
const NULL = literal("null");
const NAN = literal("NaN");
const INFINITY = literal("Infinity");
const MINUS_INFINITY = literal("-Infinity");
const marker = (name: string): Uint8Array => literal(JSON.stringify({ [FLOAT_MARKER_KEY]: name }));
const NAN_MARKER = marker("NaN");
const INFINITY_MARKER = marker("Infinity");
const MINUS_INFINITY_MARKER = marker("-Infinity");

const utf8 = new TextDecoder();

class Transcoder {
  /** Set by `#string`: the string just read had a backslash escape / a byte beyond ASCII. */
  #escaped = false;
  #ascii = true;

  constructor(
    private readonly body: Uint8Array,
    private readonly maxDepth: number,
    /** Null while checking: nothing is written, keys are checked. */
    private readonly out: ChunkSink | null,
  ) {}

  run(): boolean {
    const { body, out } = this;
    const length = body.length;
    const checking = out === null;
    /** The open containers' opening bytes, innermost last. */
    const open: number[] = [];
    const keys: ObjectKeys[] = [];
    let at = skipWhitespace(body, 0);
    // The parser's path gives any other line its error (it must be an object).
    if (body[at] !== OPEN_OBJECT) return false;
    let expect = VALUE;
    for (;;) {
      at = skipWhitespace(body, at);
      if (at >= length) return false;
      const c = body[at] as number;
      if (expect === AFTER_VALUE) {
        const inObject = open[open.length - 1] === OPEN_OBJECT;
        if (c === COMMA) {
          out?.byte(COMMA);
          at++;
          expect = inObject ? KEY : VALUE;
          continue;
        }
        if (c !== (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) return false;
      } else if (!((expect === VALUE_OR_CLOSE && c === CLOSE_ARRAY) || (expect === KEY_OR_CLOSE && c === CLOSE_OBJECT))) {
        if (expect === KEY || expect === KEY_OR_CLOSE) {
          if (c !== QUOTE) return false;
          const end = this.#string(at);
          if (end < 0) return false;
          if (checking && !(keys[keys.length - 1] as ObjectKeys).add(this.#keyText(at, end))) return false;
          at = skipWhitespace(body, end);
          if (body[at] !== COLON) return false;
          out?.byte(COLON);
          at++;
          expect = VALUE;
        } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
          if (open.length >= this.maxDepth) return false;
          open.push(c);
          if (checking && c === OPEN_OBJECT) keys.push(new ObjectKeys());
          out?.byte(c);
          at++;
          expect = c === OPEN_OBJECT ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
        } else {
          at = this.#scalar(at, c);
          if (at < 0) return false;
          expect = AFTER_VALUE;
        }
        continue;
      }
      // `c` closes the innermost container.
      out?.byte(c);
      at++;
      if (open.pop() === OPEN_OBJECT && checking) keys.pop();
      if (open.length === 0) return skipWhitespace(body, at) === length;
      expect = AFTER_VALUE;
    }
  }

  /** Reads (and writes) the scalar at `at`, starting with byte `c`; the offset after it, or -1. */
  #scalar(at: number, c: number): number {
    switch (c) {
      case QUOTE:
        return this.#string(at);
      case 0x74:
        return this.#word(at, TRUE, TRUE);
      case 0x66:
        return this.#word(at, FALSE, FALSE);
      case 0x6e:
        return this.#word(at, NULL, NULL);
      case 0x4e:
        return this.#word(at, NAN, NAN_MARKER);
      case 0x49:
        return this.#word(at, INFINITY, INFINITY_MARKER);
      default:
        if (c === 0x2d && this.body[at + 1] === 0x49) return this.#word(at, MINUS_INFINITY, MINUS_INFINITY_MARKER);
        if (c === 0x2d || isDigit(c)) return this.#number(at);
        return -1;
    }
  }

  #word(at: number, word: Uint8Array, written: Uint8Array): number {
    const { body } = this;
    for (let i = 0; i < word.length; i++) if (body[at + i] !== word[i]) return -1;
    this.out?.copy(written, 0, written.length);
    return at + word.length;
  }

  /**
   * A number as the parser's pattern reads it (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
   * written as the parsed value writes itself: an integer as its digits (exact, whatever its
   * size; `-0` as `0`), a float as `JSON.stringify` of the double, or the marker when it overflows.
   */
  #number(at: number): number {
    const { body } = this;
    let i = at;
    if (body[i] === 0x2d) i++;
    if (body[i] === 0x30) i++;
    else if (isDigit(body[i] ?? 0)) while (isDigit(body[i] ?? 0)) i++;
    else return -1;
    let float = false;
    if (body[i] === 0x2e && isDigit(body[i + 1] ?? 0)) {
      float = true;
      i += 2;
      while (isDigit(body[i] ?? 0)) i++;
    }
    const e = body[i];
    if (e === 0x65 || e === 0x45) {
      let j = i + 1;
      if (body[j] === 0x2b || body[j] === 0x2d) j++;
      if (isDigit(body[j] ?? 0)) {
        float = true;
        i = j + 1;
        while (isDigit(body[i] ?? 0)) i++;
      }
    }
    const out = this.out;
    if (out === null) return i;
    if (!float) {
      if (i - at === 2 && body[at] === 0x2d && body[at + 1] === 0x30) out.byte(0x30);
      else out.copy(body, at, i);
      return i;
    }
    const value = Number(asciiText(body, at, i));
    if (Number.isFinite(value)) out.ascii(JSON.stringify(value));
    else out.copy(value > 0 ? INFINITY_MARKER : MINUS_INFINITY_MARKER, 0, value > 0 ? INFINITY_MARKER.length : MINUS_INFINITY_MARKER.length);
    return i;
  }

  /** Reads (and writes) the string whose quote is at `at`; the offset after its closing quote, or -1. */
  #string(at: number): number {
    const { body } = this;
    const length = body.length;
    let escaped = false;
    let ascii = true;
    let i = at + 1;
    for (;;) {
      if (i >= length) return -1;
      const b = body[i] as number;
      if (b === QUOTE) break;
      if (b === BACKSLASH) {
        const letter = body[i + 1] ?? 0;
        if (letter === LETTER_U) {
          if (hex4(body, i + 2) < 0) return -1;
          i += 6;
        } else if (letter < 128 && SIMPLE_ESCAPE[letter] === 1) {
          i += 2;
        } else {
          return -1;
        }
        escaped = true;
      } else if (b < 0x20) {
        return -1; // a control character must be escaped
      } else {
        if (b >= 0x80) ascii = false;
        i++;
      }
    }
    this.#escaped = escaped;
    this.#ascii = ascii;
    const out = this.out;
    if (out !== null) {
      if (escaped) this.#reescape(at, i);
      else out.copy(body, at, i + 1);
    }
    return i + 1;
  }

  /** The text of the key just read by `#string` (quotes at `at` and `end - 1`). */
  #keyText(at: number, end: number): string {
    if (this.#escaped) return JSON.parse(utf8.decode(this.body.subarray(at, end))) as string;
    return this.#ascii && end - at <= 66 ? asciiText(this.body, at + 1, end - 1) : utf8.decode(this.body.subarray(at + 1, end - 1));
  }

  /** Writes a string with escapes (quotes at `at` and `quote`) the way `JSON.stringify` writes its value. */
  #reescape(at: number, quote: number): void {
    const { body } = this;
    const out = this.out as ChunkSink;
    out.byte(QUOTE);
    let run = at + 1;
    let i = run;
    while (i < quote) {
      if (body[i] !== BACKSLASH) {
        i++;
        continue;
      }
      out.copy(body, run, i);
      const letter = body[i + 1] as number;
      if (letter === LETTER_U) {
        const unit = hex4(body, i + 2);
        i += 6;
        const low = unit >= 0xd800 && unit <= 0xdbff && i < quote && body[i] === BACKSLASH && body[i + 1] === LETTER_U ? hex4(body, i + 2) : -1;
        if (low >= 0xdc00 && low <= 0xdfff) {
          out.codePoint(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00));
          i += 6;
        } else {
          out.codeUnit(unit);
        }
      } else {
        // `\/` is written as `/`; the other short escapes are how JSON.stringify writes them too.
        if (letter === SLASH) out.byte(SLASH);
        else out.pair(BACKSLASH, letter);
        i += 2;
      }
      run = i;
    }
    out.copy(body, run, quote);
    out.byte(QUOTE);
  }
}

/**
 * The keys of one object being checked: false from `add` when a JavaScript object would not
 * keep a key where the line has it (a duplicate merges into the first; array indexes go
 * first, in ascending order).
 */
class ObjectKeys {
  #lastIndex = -1;
  #named = false;
  #names: string[] | Set<string> = [];

  add(key: string): boolean {
    const index = arrayIndex(key);
    if (index >= 0) {
      if (this.#named || index <= this.#lastIndex) return false;
      this.#lastIndex = index;
      return true;
    }
    this.#named = true;
    const names = this.#names;
    if (names instanceof Set) {
      if (names.has(key)) return false;
      names.add(key);
      return true;
    }
    if (names.includes(key)) return false;
    names.push(key);
    if (names.length > 16) this.#names = new Set(names);
    return true;
  }
}

/** The array index a key names (a canonical integer up to 2^32 − 2), or -1. */
function arrayIndex(key: string): number {
  const length = key.length;
  if (length === 0 || length > 10) return -1;
  const first = key.charCodeAt(0);
  if (!isDigit(first) || (first === 0x30 && length > 1)) return -1;
  for (let i = 1; i < length; i++) if (!isDigit(key.charCodeAt(i))) return -1;
  const value = Number(key);
  return value <= MAX_ARRAY_INDEX ? value : -1;
}

/** Chunks of fixed size, each a fresh buffer handed on when full. */
class ChunkSink {
  #chunk: Uint8Array;
  #at = 0;

  constructor(
    private readonly size: number,
    private readonly onChunk: (chunk: Uint8Array) => void,
  ) {
    this.#chunk = new Uint8Array(size);
  }

  byte(b: number): void {
    if (this.#at === this.size) this.#next();
    this.#chunk[this.#at++] = b;
  }

  pair(a: number, b: number): void {
    this.byte(a);
    this.byte(b);
  }

  copy(from: Uint8Array, start: number, end: number): void {
    while (start < end) {
      if (this.#at === this.size) this.#next();
      const count = Math.min(end - start, this.size - this.#at);
      if (count < 16) {
        for (let i = 0; i < count; i++) this.#chunk[this.#at + i] = from[start + i] as number;
      } else {
        this.#chunk.set(from.subarray(start, start + count), this.#at);
      }
      this.#at += count;
      start += count;
    }
  }

  /** ASCII text (a number as JSON writes it). */
  ascii(text: string): void {
    for (let i = 0; i < text.length; i++) this.byte(text.charCodeAt(i));
  }

  /** One UTF-16 code unit of a string's value, as JSON.stringify writes it (a lone surrogate escaped). */
  codeUnit(unit: number): void {
    if (unit === QUOTE || unit === BACKSLASH) this.pair(BACKSLASH, unit);
    else if (unit < 0x20) {
      const short = SHORT_ESCAPE[unit];
      if (short !== undefined) this.pair(BACKSLASH, short);
      else this.#hexEscape(unit);
    } else if (unit >= 0xd800 && unit <= 0xdfff) this.#hexEscape(unit);
    else this.codePoint(unit);
  }

  /** A code point (not a surrogate) as UTF-8. */
  codePoint(point: number): void {
    if (point < 0x80) this.byte(point);
    else if (point < 0x800) this.pair(0xc0 | (point >> 6), 0x80 | (point & 0x3f));
    else if (point < 0x10000) {
      this.byte(0xe0 | (point >> 12));
      this.pair(0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
    } else {
      this.pair(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f));
      this.pair(0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
    }
  }

  #hexEscape(unit: number): void {
    this.ascii(`\\u${HEX_DIGITS[(unit >> 12) & 15]}${HEX_DIGITS[(unit >> 8) & 15]}${HEX_DIGITS[(unit >> 4) & 15]}${HEX_DIGITS[unit & 15]}`);
  }

  #next(): void {
    this.onChunk(this.#chunk);
    this.#chunk = new Uint8Array(this.size);
    this.#at = 0;
  }

  end(): void {
    if (this.#at > 0) this.onChunk(this.#chunk.slice(0, this.#at));
  }
}

function skipWhitespace(body: Uint8Array, at: number): number {
  let c = body[at];
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = body[++at];
  return at;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The value of four hex digits at `at`, or -1. */
function hex4(body: Uint8Array, at: number): number {
  let value = 0;
  for (let i = at; i < at + 4; i++) {
    const c = body[i] ?? 0;
    const digit = isDigit(c) ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

function asciiText(body: Uint8Array, start: number, end: number): string {
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(body[i] as number);
  return text;
}
