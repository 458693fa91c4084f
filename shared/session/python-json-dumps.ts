/**
 * A writer whose output is byte-identical to Python's `json.dumps(obj, sort_keys=True)`
 * (defaults: `ensure_ascii=True`, separators `", "` and `": "`, `allow_nan=True`), so files
 * we write are indistinguishable from WINK's.
 *
 * JavaScript has one number type, so ints and floats are told apart by value: a number that
 * is an integer within the safe range is written as an int (`1.0` → `1`), every other
 * number like Python's `repr(float)` (`1e+16`, `1.5e-07`, `0.1`, `NaN`, `-0.0`); a
 * `bigint` is written as its digits.
 */
import { InvalidArgumentError } from "../errors.js";
import { writeJson, type JsonDialect } from "./json-writer.js";
import { DEFAULT_MAX_JSON_DEPTH } from "./python-json-parse.js";

export interface DumpsPythonOptions {
  /** Sort object keys by code point, as Python's `sort_keys=True` (default false: insertion order). */
  sortKeys?: boolean;
  /** Refuse values nested deeper than this (default 1000). */
  maxDepth?: number;
}

/**
 * Serialises a value like Python's `json.dumps`. Values without a JSON form follow
 * JSON.stringify (`undefined` members are dropped, `null` in arrays, `toJSON()` is used).
 * Throws {@link InvalidArgumentError} on a cycle or nesting beyond `maxDepth`.
 */
export function dumpsPython(value: unknown, options: DumpsPythonOptions = {}): string {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const parts: string[] = [];
  if (!writeJson(parts, value, pythonDialect(options.sortKeys ?? false, maxDepth), maxDepth)) return "null";
  return parts.join("");
}

/** Python's `repr(float)` for a JavaScript number (shortest round-trip digits). */
export function formatPythonFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  // toExponential() without an argument yields the shortest digits that round-trip,
  // which is the digit string Python's repr uses too.
  const [mantissa = "", exponentText = "0"] = Math.abs(value).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  // Python switches to scientific notation when the decimal exponent is < -4 or >= 16.
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const expSign = exponent < 0 ? "-" : "+";
    return `${sign}${digits[0]}${fraction}e${expSign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const integerPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fractionPart = digits.slice(exponent + 1);
  return `${sign}${integerPart}.${fractionPart === "" ? "0" : fractionPart}`;
}

/** How a number is written: an int when integral and safe, otherwise a Python float. */
export function formatPythonNumber(value: number): string {
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  return formatPythonFloat(value);
}

/**
 * Orders strings by Unicode code point, as Python compares `str` (JavaScript's default
 * sort compares UTF-16 code units, which puts U+10000 before U+E000).
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    // The strings agree up to here; if a shared high surrogate precedes, compare whole pairs.
    const at = i > 0 && isHighSurrogate(a.charCodeAt(i - 1)) && (isLowSurrogate(x) || isLowSurrogate(y)) ? i - 1 : i;
    return (a.codePointAt(at) ?? 0) - (b.codePointAt(at) ?? 0);
  }
  return a.length - b.length;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

// Everything outside printable ASCII, plus '"' and '\', is escaped (ensure_ascii).
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;
const NEEDS_ESCAPE_GLOBAL = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;
const SHORT_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '\\"'], ["\\", "\\\\"], ["\n", "\\n"], ["\r", "\\r"], ["\t", "\\t"], ["\b", "\\b"], ["\f", "\\f"],
]);

/** A string literal as Python's `json.dumps` (ensure_ascii) writes it. */
export function encodePythonString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  return `"${value.replace(NEEDS_ESCAPE_GLOBAL, escapeCodeUnit)}"`;
}

function escapeCodeUnit(unit: string): string {
  return SHORT_ESCAPES.get(unit) ?? `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** `json.dumps`' text: ensure_ascii strings, Python's numbers, a cut-off container refused. */
function pythonDialect(sortKeys: boolean, maxDepth: number): JsonDialect {
  return {
    itemSeparator: ", ",
    keySeparator: ": ",
    compareKeys: sortKeys ? compareCodePoints : undefined,
    string: encodePythonString,
    number: formatPythonNumber,
    cutOff: (reason) => {
      if (reason === "cycle") throw new InvalidArgumentError("Circular reference detected", {});
      throw new InvalidArgumentError(`Value nested deeper than ${maxDepth} levels cannot be written`, { maxDepth });
    },
    toJsonThrew: (error) => {
      throw error;
    },
  };
}
