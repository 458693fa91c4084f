import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors.js";
import type { JsonValue } from "./json-value.js";
import { compareCodePoints, dumpsPython, formatPythonFloat } from "./python-json-dumps.js";
import { parsePythonJson } from "./python-json-parse.js";
import { WINK_FIXTURES } from "../../fixtures/paths.js";

const FIXTURES = WINK_FIXTURES;

/**
 * Real python3 as the oracle. Values travel as tagged JSON so that Python sees the same
 * types our writer infers: safe integral numbers as int, other numbers as float, bigints
 * as int, and objects as key/value pairs (so keys such as `__proto__` survive the trip).
 */
const ORACLE = String.raw`
import json, sys
def decode(v):
    if isinstance(v, dict):
        (tag, payload), = v.items()
        if tag == "f": return float(payload)
        if tag == "i": return int(payload)
        return {k: decode(x) for k, x in payload}
    if isinstance(v, list): return [decode(x) for x in v]
    return v
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "dumps":
        print(json.dumps(decode(request["value"]), sort_keys=True), flush=True)
    else:
        print(json.dumps(sorted(request["value"])), flush=True)
`;

function toWire(value: unknown): unknown {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && !Object.is(value, -0)) return value;
    return { f: Object.is(value, -0) ? "-0.0" : String(value) };
  }
  if (typeof value === "bigint") return { i: value.toString() };
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === "object") {
    return { o: Object.keys(value).map((key) => [key, toWire((value as Record<string, unknown>)[key])]) };
  }
  return value;
}

class PythonOracle {
  private readonly process: ChildProcessWithoutNullStreams = spawn("python3", ["-c", ORACLE]);
  private readonly waiting: ((line: string) => void)[] = [];

  constructor() {
    createInterface({ input: this.process.stdout }).on("line", (line) => this.waiting.shift()?.(line));
  }

  private ask(request: unknown): Promise<string> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      // JSON.stringify escapes lone surrogates, which Python's json.loads reads back as such.
      this.process.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  dumps(value: unknown): Promise<string> {
    return this.ask({ op: "dumps", value: toWire(value) });
  }

  async sorted(strings: string[]): Promise<string[]> {
    return JSON.parse(await this.ask({ op: "sorted", value: strings })) as string[];
  }

  close(): void {
    this.process.stdin.end();
  }
}

// Strings over the whole code-unit range: lone surrogates, controls, astral pairs.
const anyString = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\ud800", "\udfff", "\u2028", "\u007f", '"', "\\", "\u0000", "a", "é", "😀", "\uffff"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
  ),
});
const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(1e16, 1.5e-7, 0.1, 1e22, 5e-324, -0, 1e-5, 1e-4, 123456789012345680000, 2 ** 53, -(2 ** 53), 0.5, 1e300),
);
const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    anyNumber,
    fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }),
    anyString,
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.oneof(anyString, fc.constantFrom("__proto__", "constructor", "toString")), tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("dumpsPython is byte-identical to Python's json.dumps(sort_keys=True)", () => {
  let oracle: PythonOracle;
  beforeAll(() => {
    oracle = new PythonOracle();
  });
  afterAll(() => oracle.close());

  it("on random values (fast-check against real python3)", async () => {
    await fc.assert(
      fc.asyncProperty(anyValue, async (value) => {
        expect(dumpsPython(value, { sortKeys: true })).toBe(await oracle.dumps(value));
      }),
      { numRuns: 600 },
    );
  });

  it("formats floats like repr(float), on random doubles", async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ noDefaultInfinity: false }), async (value) => {
        const expected = await oracle.dumps(value);
        expect(dumpsPython(value)).toBe(expected);
        if (!Number.isSafeInteger(value) || Object.is(value, -0)) expect(formatPythonFloat(value)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("sorts keys by code point, as Python sorts str", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyString, { maxLength: 8 }), async (strings) => {
        expect([...strings].sort(compareCodePoints)).toEqual(await oracle.sorted(strings));
      }),
      { numRuns: 300 },
    );
    expect(["\ud800\udc00", "\ue000"].sort(compareCodePoints)).toEqual(["\ue000", "\ud800\udc00"]);
  });

  it("writes the documented examples", () => {
    expect(dumpsPython([1e16, 1.5e-7, 0.1, 1.0, -0, 2 ** 53, 10n ** 20n, Number.NaN, Number.NEGATIVE_INFINITY])).toBe(
      "[1e+16, 1.5e-07, 0.1, 1, -0.0, 9007199254740992.0, 100000000000000000000, NaN, -Infinity]",
    );
    expect(dumpsPython({ b: "é\n", a: ["\udc80"] }, { sortKeys: true })).toBe('{"a": ["\\udc80"], "b": "\\u00e9\\n"}');
  });
});

describe("dumpsPython on real WINK files", () => {
  const files = readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
    .map((name) => join(FIXTURES, name))
    .filter((path) => path.endsWith(".jsonl") && statSync(path).isFile());

  it.each(files)("re-serialises every line of %s byte for byte", (path) => {
    const lines = readFileSync(path, "utf8").split("\n").filter((line) => line !== "");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(dumpsPython(parsePythonJson(line), { sortKeys: true })).toBe(line);
  });
});

describe("dumpsPython: values without a JSON form", () => {
  it("follows JSON.stringify for undefined, functions and toJSON", () => {
    const value = { a: undefined, b: [undefined, () => 1], c: new Date(Date.UTC(2024, 0, 2)), d: 1 };
    expect(dumpsPython(value, { sortKeys: true })).toBe('{"b": [null, null], "c": "2024-01-02T00:00:00.000Z", "d": 1}');
    expect(dumpsPython(undefined)).toBe("null");
  });

  it("refuses cycles and over-deep values with InvalidArgumentError", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => dumpsPython(cycle)).toThrow(InvalidArgumentError);
    let deep: JsonValue = [];
    for (let i = 0; i < 1500; i++) deep = [deep];
    expect(() => dumpsPython(deep)).toThrow(/deeper than 1000 levels/);
    const shared = { x: 1 };
    expect(dumpsPython([shared, shared])).toBe('[{"x": 1}, {"x": 1}]');
  });

  it("agrees with python3 on a value holding every special case at once", () => {
    const value = { "__proto__": { n: Number.NaN }, big: -(2n ** 64n), s: "\u0000\u2028\ud83d", f: [1e-7, 1e21, -1.25] };
    const expected = execFileSync(
      "python3",
      ["-c", 'import json; print(json.dumps({"__proto__": {"n": float("nan")}, "big": -2**64, "s": "\\x00\\u2028\\ud83d", "f": [1e-7, 1e21, -1.25]}, sort_keys=True))'],
      { encoding: "utf8" },
    ).trimEnd();
    const withOwnProto = JSON.parse('{"__proto__": {}}') as Record<string, unknown>;
    Object.assign(withOwnProto, { big: value.big, s: value.s, f: value.f });
    Object.defineProperty(withOwnProto, "__proto__", { value: { n: Number.NaN }, enumerable: true });
    expect(dumpsPython(withOwnProto, { sortKeys: true })).toBe(expected);
  });
});
