import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SessionLoadError } from "../errors.js";
import type { JsonValue } from "./json-value.js";
import { dumpsPython } from "./python-json-dumps.js";
import { DEFAULT_MAX_JSON_DEPTH, parsePythonJson, parsePythonJsonLossless, prescanJson } from "./python-json-parse.js";

function parseError(text: string, maxDepth?: number): SessionLoadError {
  try {
    parsePythonJson(text, maxDepth === undefined ? {} : { maxDepth });
  } catch (error) {
    expect(error).toBeInstanceOf(SessionLoadError);
    return error as SessionLoadError;
  }
  throw new Error(`expected ${JSON.stringify(text.slice(0, 40))} to be refused`);
}

/**
 * JSON.parse's value with Python's reading of integer literals: those JSON.stringify prints
 * as digits (below 1e21) but outside the safe range are exact bigints.
 */
function withExactIntegers(value: JsonValue): JsonValue {
  if (typeof value === "number") {
    return Number.isInteger(value) && !Number.isSafeInteger(value) && Math.abs(value) < 1e21 ? BigInt(String(value)) : value;
  }
  if (Array.isArray(value)) return value.map(withExactIntegers);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withExactIntegers(member)]));
  }
  return value;
}

describe("parsePythonJson: the two paths agree", () => {
  it("gives JSON.parse's values for any strict JSON text, on both paths", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const expected = withExactIntegers(JSON.parse(text) as JsonValue);
        expect(parsePythonJson(text)).toEqual(expected);
        expect(parsePythonJsonLossless(text)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("reads Python-specific tokens anywhere in large values", () => {
    const unsafe = fc.oneof(fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }), fc.bigInt({ min: -(2n ** 80n), max: -(2n ** 53n) }));
    const leaf = fc.oneof(fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0), unsafe, fc.double(), fc.string({ maxLength: 40 }), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 12 }), fc.dictionary(fc.string({ maxLength: 8 }), tie("node"), { maxKeys: 12 })),
    })).node;
    fc.assert(
      fc.property(value, fc.array(fc.string({ minLength: 10, maxLength: 20 }), { minLength: 20, maxLength: 30 }), (inner, clean) => {
        const original = [inner, clean, Number.NaN];
        const text = dumpsPython(original);
        expect(parsePythonJsonLossless(text)).toEqual(original);
        expect(parsePythonJson(text)).toEqual(original);
      }),
      { numRuns: 300 },
    );
  });

  it("routes texts to the native parser only when nothing Python-specific is outside strings", () => {
    expect(prescanJson('{"a": [1, 2.5e300, "NaN Infinity 123456789012345678"]}', 10)).toBe("native");
    expect(prescanJson('{"a": NaN}', 10)).toBe("lossless");
    expect(prescanJson("[-Infinity]", 10)).toBe("lossless");
    expect(prescanJson("[1234567890123456]", 10)).toBe("lossless");
    expect(prescanJson("[0.12345678901234567890123, 1e-400]", 10)).toBe("native");
    expect(prescanJson('["\\"", 1]', 10)).toBe("native");
    expect(prescanJson("[[[]]]", 2)).toBe("too-deep");
  });
});

describe("parsePythonJson: Python's extensions", () => {
  it("reads bare NaN, Infinity and -Infinity", () => {
    const value = parsePythonJson('{"a": NaN, "b": [Infinity, -Infinity], "c": -1.5}') as Record<string, JsonValue>;
    expect(value.a).toBeNaN();
    expect(value.b).toEqual([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    expect(value.c).toBe(-1.5);
  });

  it("keeps integers beyond 2^53 exact as bigint and safe ones as number", () => {
    expect(parsePythonJson("18446744073709551617")).toBe(18446744073709551617n);
    expect(parsePythonJson("[9007199254740991, 9007199254740992, -9007199254740993]")).toEqual([
      9007199254740991, 9007199254740992n, -9007199254740993n,
    ]);
    expect(parsePythonJson("1234567890123456")).toBe(1234567890123456);
    expect(parsePythonJson("-0")).toBe(-0);
    // Floats are floats in Python too: long fractions and huge exponents stay numbers.
    expect(parsePythonJson("[1e400, -1e400, 12345678901234567890.5]")).toEqual([
      Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number("12345678901234567890.5"),
    ]);
  });

  it("keeps lone surrogates and control characters from \\u escapes", () => {
    const value = parsePythonJson('["\\udc80", "\\ud83d\\ude00", "\\u0000\\u001f\\u007f", "\\ud800x"]') as string[];
    expect(value[0]?.charCodeAt(0)).toBe(0xdc80);
    expect(value[1]).toBe("😀");
    expect(value[2]).toBe("\u0000\u001f\u007f");
    expect(value[3]).toBe("\ud800x");
    expect(parsePythonJson('[NaN, "\\udc80"]')).toEqual([Number.NaN, "\udc80"]);
  });

  it("treats __proto__ and constructor keys as own data on both paths", () => {
    const texts = ['{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": 1}}}'];
    texts.push(texts[0]!.replace("}}}", "}}, \"n\": NaN}"));
    for (const text of texts) {
      const value = parsePythonJson(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.keys(value)).toContain("__proto__");
      expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
      expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("keeps the last of duplicate keys, like JSON.parse and Python", () => {
    expect(parsePythonJson('{"role": "user", "role": "system"}')).toEqual({ role: "system" });
    expect(parsePythonJson('{"role": "user", "role": "system", "n": NaN}')).toMatchObject({ role: "system" });
  });

  it("reads a line of tens of MB on either path", () => {
    const body = "x".repeat(20 * 1024 * 1024);
    expect((parsePythonJson(`{"content": "${body}"}`) as { content: string }).content.length).toBe(body.length);
    expect((parsePythonJson(`{"content": "${body}", "n": NaN}`) as { content: string }).content.length).toBe(body.length);
  });

  it("round-trips real python3 output, big integers and non-finite floats included", () => {
    const script = [
      "import json, random",
      "random.seed(7)",
      "def val(d):",
      "    r = random.random()",
      "    if d > 3 or r < 0.3:",
      "        return random.choice([None, True, False, random.randint(-2**70, 2**70), random.randint(-99, 99),",
      "            float('nan'), float('inf'), -float('inf'), random.uniform(-1e9, 1e9) + 0.5, random.random() * 1e-9,",
      "            ''.join(chr(random.choice([0x41, 0x0, 0x1f, 0x7f, 0xe9, 0x2028, 0xd800, 0xdfff, 0x1f600])) for _ in range(5))])",
      "    if r < 0.65:",
      "        return [val(d + 1) for _ in range(random.randint(0, 4))]",
      "    return {''.join(chr(random.randint(0x20, 0x2ff)) for _ in range(3)): val(d + 1) for _ in range(random.randint(0, 4))}",
      "for _ in range(400):",
      "    print(json.dumps(val(0), sort_keys=True))",
    ].join("\n");
    const lines = execFileSync("python3", ["-c", script], { encoding: "utf8" }).trimEnd().split("\n");
    expect(lines).toHaveLength(400);
    for (const line of lines) expect(dumpsPython(parsePythonJson(line), { sortKeys: true })).toBe(line);
  });
});

describe("parsePythonJson: refusals", () => {
  it.each([
    ['{"type":"message","content":"truncated', "unterminated string"],
    ["{'type': 'message'}", "expected a string key"],
    ['{"a":1,}', "expected a string key"],
    ["// comment", "expected a value"],
    ['{"a": nan}', "unexpected 'n'"],
    ['{"a": -Inf}', "invalid number"],
    ["[1 2]", "expected ',' or ']'"],
    ['"tab\there"', "control character U+0009"],
    ['"\\x41"', "invalid escape"],
    ['"\\u12"', "invalid \\u escape"],
    ["", "expected a value, found end of input"],
    ["\ufeff{}", "U+FEFF"],
    ["{} {}", "after the JSON value"],
  ])("refuses %j with a reason and a column", (text, reason) => {
    const error = parseError(text);
    expect(error.code).toBe("E_SESSION_LOAD");
    expect(error.message).toContain(reason);
    expect(typeof error.data.column).toBe("number");
  });

  it("caps nesting at 1,000 levels with a clear error, never a RangeError", () => {
    expect(DEFAULT_MAX_JSON_DEPTH).toBe(1000);
    expect(() => parsePythonJson("[".repeat(1000) + "]".repeat(1000))).not.toThrow();
    for (const text of ["[".repeat(1001) + "]".repeat(1001), "[".repeat(10_000), '{"a":'.repeat(5000) + "1" + "}".repeat(5000)]) {
      expect(parseError(text).message).toContain("nesting deeper than 1000 levels");
    }
    expect(parseError("[[[NaN]]]", 2).message).toContain("nesting deeper than 2 levels");
  });
});
