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
  const parts: string[] = [];
  const writer = new PythonJsonWriter(parts, options.sortKeys ?? false, options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH);
  if (!writer.write(value, 0)) return "null";
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

class PythonJsonWriter {
  private readonly ancestors = new Set<object>();

  constructor(
    private readonly parts: string[],
    private readonly sortKeys: boolean,
    private readonly maxDepth: number,
  ) {}

  write(value: unknown, depth: number): boolean {
    switch (typeof value) {
      case "string":
        this.parts.push(encodePythonString(value));
        return true;
      case "number":
        this.parts.push(formatPythonNumber(value));
        return true;
      case "bigint":
        this.parts.push(value.toString());
        return true;
      case "boolean":
        this.parts.push(value ? "true" : "false");
        return true;
      case "object":
        if (value === null) {
          this.parts.push("null");
          return true;
        }
        return this.writeContainer(value, depth);
      default:
        return false;
    }
  }

  private writeContainer(value: object, depth: number): boolean {
    const withToJson = value as { toJSON?: unknown };
    if (typeof withToJson.toJSON === "function") {
      const replacement: unknown = (withToJson.toJSON as () => unknown).call(value);
      if (replacement !== value) return this.write(replacement, depth);
    }
    if (depth >= this.maxDepth) {
      throw new InvalidArgumentError(`Value nested deeper than ${this.maxDepth} levels cannot be written`, { maxDepth: this.maxDepth });
    }
    if (this.ancestors.has(value)) throw new InvalidArgumentError("Circular reference detected", {});
    this.ancestors.add(value);
    if (Array.isArray(value)) {
      this.parts.push("[");
      value.forEach((element: unknown, index) => {
        if (index > 0) this.parts.push(", ");
        if (!this.write(element, depth + 1)) this.parts.push("null");
      });
      this.parts.push("]");
    } else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      if (this.sortKeys) keys.sort(compareCodePoints);
      this.parts.push("{");
      let first = true;
      for (const key of keys) {
        const mark = this.parts.length;
        this.parts.push(first ? "" : ", ", encodePythonString(key), ": ");
        if (this.write(record[key], depth + 1)) first = false;
        else this.parts.length = mark;
      }
      this.parts.push("}");
    }
    this.ancestors.delete(value);
    return true;
  }
}
