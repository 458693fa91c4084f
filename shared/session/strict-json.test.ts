import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "./json-value.js";
import { parsePythonJson } from "./python-json-parse.js";
import { FLOAT_MARKER_KEY, TRUNCATED_MARKER_KEY, toStrictJson } from "./strict-json.js";

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
