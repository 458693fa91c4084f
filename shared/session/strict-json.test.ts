import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "./json-value.js";
import { parsePythonJson } from "./python-json-parse.js";
import { FLOAT_MARKER_KEY, LazyJsonArray, TRUNCATED_MARKER_KEY, strictJsonChunks, toStrictJson } from "./strict-json.js";

describe("toStrictJson", () => {
  it("equals JSON.stringify on plain JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(toStrictJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 300 },
    );
  });

  it("maps bigint to exact digits and non-finite floats to markers", () => {
    const text = toStrictJson({ id: 18446744073709551617n, n: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY], z: -0 });
    expect(text).toBe('{"id":18446744073709551617,"n":[{"__float__":"NaN"},{"__float__":"Infinity"},{"__float__":"-Infinity"}],"z":0}');
    expect(FLOAT_MARKER_KEY).toBe("__float__");
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it("escapes lone surrogates as \\udXXX: valid JSON that reads back to the same string", () => {
    const value = { s: "a\udc80b\ud800", pair: "😀" };
    const text = toStrictJson(value);
    expect(text).toContain("\\udc80");
    expect(text).toContain("\\ud800");
    expect(text).not.toContain("\ufffd");
    expect(new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode(text))).toBe(text);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("never throws: depth beyond the cap, cycles, undefined, functions, throwing toJSON", () => {
    let deep: JsonValue = "leaf";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const capped = JSON.parse(toStrictJson(deep)) as unknown[];
    let level: unknown = capped;
    let depth = 0;
    while (Array.isArray(level)) {
      level = level[0];
      depth++;
    }
    expect(depth).toBe(1000);
    expect(level).toEqual({ [TRUNCATED_MARKER_KEY]: "max-depth" });

    const cycle: Record<string, unknown> = { a: 1n };
    cycle.self = cycle;
    expect(JSON.parse(toStrictJson(cycle))).toEqual({ a: 1, self: { __truncated__: "cycle" } });

    const odd = { u: undefined, f: () => 1, list: [undefined, Symbol("s")], bad: { toJSON: () => { throw new Error("no"); } }, big: 2n };
    expect(JSON.parse(toStrictJson(odd))).toEqual({ list: [null, null], bad: null, big: 2 });
    expect(toStrictJson(undefined)).toBe("null");
  });

  it("serialises every value the parser produces from random Python-JSON text", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom("NaN", "-Infinity", "123456789012345678901234", '"\\udc80"'), fc.json()), { maxLength: 6 }), (tokens) => {
        const value = parsePythonJson(`[${tokens.join(", ")}]`);
        expect(() => JSON.parse(toStrictJson(value))).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });
});

describe("strictJsonChunks", () => {
  const value = fc.letrec((tie) => ({
    leaf: fc.oneof(fc.string(), fc.double(), fc.bigInt(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant("\udc80")),
    node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node"), { maxLength: 5 }), fc.dictionary(fc.string({ maxLength: 4 }), tie("node"), { maxKeys: 5 })),
  })).node;

  it("gives exactly toStrictJson's text, in chunks, whatever the depth streamed and the cap", () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 6 }), (input, streamDepth, chunkChars, maxDepth) => {
        const chunks = [...strictJsonChunks(input, { streamDepth, chunkChars, maxDepth })];
        expect(chunks.join("")).toBe(toStrictJson(input, { maxDepth }));
        // Every chunk but the last is at least chunkChars long; none is empty.
        chunks.slice(0, -1).forEach((chunk) => expect(chunk.length).toBeGreaterThanOrEqual(chunkChars));
        chunks.forEach((chunk) => expect(chunk.length).toBeGreaterThan(0));
      }),
      { numRuns: 400 },
    );
  });

  it("writes a LazyJsonArray item by item, asking for each item once, as toJSON would give it", () => {
    const asked: number[] = [];
    const lazy = new LazyJsonArray(3, (index) => {
      asked.push(index);
      return index === 1 ? { n: Number.NaN, big: 12345678901234567890n } : [index];
    });
    const chunks = strictJsonChunks({ items: lazy, total: 3 }, { chunkChars: 1 });
    expect(chunks.next().value).toBe("{");
    expect(asked).toEqual([]);
    const text = ["{", ...chunks].join("");
    expect(asked).toEqual([0, 1, 2]);
    expect(text).toBe('{"items":[[0],{"n":{"__float__":"NaN"},"big":12345678901234567890},[2]],"total":3}');
    expect(toStrictJson({ items: lazy, total: 3 })).toBe(text);
  });
});
