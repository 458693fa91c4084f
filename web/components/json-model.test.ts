import { describe, expect, it } from "vitest";
import { arrayPreview, asFloatMarker, containerPaths, itemMatches, kindOf, primitiveText, pruneByKey, visibleText } from "./json-model.js";

describe("slice values", () => {
  it("recognises markdown wrappers and float markers as the API sends them", () => {
    expect(kindOf({ __markdown__: { text: "# a", html: "<h1>a</h1>" } })).toBe("markdown");
    expect(kindOf({ __float__: "NaN" })).toBe("number");
    expect(asFloatMarker({ __float__: "-Infinity" })).toBe("-Infinity");
    expect(kindOf({ __float__: "NaN", other: 1 })).toBe("object");
    expect(primitiveText(18446744073709551617n)).toBe("18446744073709551617");
    expect(primitiveText({ __float__: "Infinity" })).toBe("Infinity");
  });

  it("searches an item's JSON, big integers included", () => {
    expect(itemMatches({ id: 18446744073709551617n, name: "Read_File" }, "read_file")).toBe(true);
    expect(itemMatches({ id: 18446744073709551617n }, "551617")).toBe(true);
    expect(itemMatches({ name: "x" }, "y")).toBe(false);
  });

  it("prunes to keys containing the filter, keeping array indices", () => {
    const value = { a: 1, result: { success: true, message: "m" }, list: [{ success: false }, { other: 1 }, { success: true }] };
    expect(pruneByKey(value, "SUCC")).toEqual({ result: { success: true }, list: [{ success: false }, undefined, { success: true }] });
    expect(pruneByKey(value, "missing")).toBeUndefined();
    const own = pruneByKey(JSON.parse('{"__proto__": {"polluted": 1}}'), "proto") as Record<string, unknown>;
    expect(Object.keys(own)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("previews arrays and lists container paths", () => {
    expect(arrayPreview([1, "a long string that goes past twenty-four", { k: 1 }, [1, 2], null, true, 7])).toBe("[1, a long string that goes…, {1 keys}, [2], null, true, … +1 more]");
    expect(containerPaths({ a: { b: [1, { c: {} }] } }, "root")).toEqual(["root.a", "root.a.b", "root.a.b.[1]", "root.a.b.[1].c"]);
  });
});

describe("visible text", () => {
  it("shows control and bidi-override characters instead of obeying them", () => {
    expect(visibleText("\u202eevil \u001b[2J\u0007")).toBe("⟨U+202E⟩evil ␛[2J␇");
    expect(visibleText("tab\tand\nnewline stay, DEL\u007f goes")).toBe("tab\tand\nnewline stay, DEL\u2421 goes");
    expect(visibleText("café ✓ 中文")).toBe("café ✓ 中文");
  });
});
