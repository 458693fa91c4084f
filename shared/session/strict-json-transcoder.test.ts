import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parsePythonJson } from "./python-json-parse.js";
import { toStrictJson } from "./strict-json.js";
import { canTranscode, transcodeStrictJson } from "./strict-json-transcoder.js";

const encoder = new TextEncoder();

/** The transcoder's text for `line`, in chunks of `chunkBytes` (small, so that tokens are cut between chunks). */
function transcoded(line: string | Uint8Array, chunkBytes = 7): string {
  const body = typeof line === "string" ? encoder.encode(line) : line;
  expect(canTranscode(body)).toBe(true);
  const chunks: Uint8Array[] = [];
  expect(transcodeStrictJson(body, (chunk) => chunks.push(chunk), { chunkBytes })).toBe(true);
  for (const chunk of chunks.slice(0, -1)) expect(chunk.byteLength).toBe(chunkBytes);
  for (const chunk of chunks) expect(chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength).toBe(true);
  return Buffer.concat(chunks).toString("utf8");
}

/** What the parser and `toStrictJson` write for `line`, as UTF-8 (lone surrogates are escaped, so nothing is lost). */
function parsedThenWritten(line: string): string {
  return toStrictJson(parsePythonJson(line));
}

const SAME_AS_PARSED = [
  '{"a": 1, "b": [true, false, null], "c": {"d": "e"}}',
  ' \t{ "a" :\r\n[ ] , "b" : { } }  ',
  '{"n": [0, -0, 7, -12, 123456789012345, 9007199254740991, 9007199254740993, -123456789012345678901234567890]}',
  '{"f": [1.0, -0.0, 1e5, 1E-7, 2.5e+10, 0.1, 1.7976931348623157e308, 1e400, -1e400, 5e-324, 1e-400, 100.000]}',
  '{"x": NaN, "y": Infinity, "z": -Infinity, "w": [NaN, -Infinity]}',
  String.raw`{"s": "plain", "e": "\" \\ \/ \b \f \n \r \t", "u": "\u0041\u00e9\u20ac\u0000\u001f\u007f\u2028", "q": "\u0022\u005c\u002F"}`,
  String.raw`{"pair": "\ud83d\ude00", "upper": "\uD83D\uDE00", "lone": "\ud800", "low": "\udc00x", "two": "\ud83d\ud83d\ude00", "rev": "\ude00\ud83d"}`,
  String.raw`{"mixed": "é😀\ud800€", "after": "\ud800😀"}`,
  String.raw`{"\u006b": 1, "é": 2, "__proto__": {"polluted": true}, "constructor": 3}`,
  '{"0": "a", "1": "b", "7": "c", "name": "d", "4294967295": "not an index", "01": "name"}',
  '{"deep": [[[[[[[[[[{"a": [[]]}]]]]]]]]]]}',
  `{"long": "${"x".repeat(1000)}", "esc": "${"\\n".repeat(300)}"}`,
];

describe("transcodeStrictJson", () => {
  it.each(SAME_AS_PARSED.map((line, index) => [index, line] as const))("writes what the parser and toStrictJson write (case %i)", (_index, line) => {
    for (const chunkBytes of [1, 7, 64 * 1024]) expect(transcoded(line, chunkBytes)).toBe(parsedThenWritten(line));
  });

  it("writes every line of the repository's session fixtures (real WINK runs, hostile lines) as the parser does, or leaves it to the parser", () => {
    const root = path.resolve(import.meta.dirname, "../../fixtures");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl") && statSync(path.join(root, name)).isFile());
    let written = 0;
    for (const name of files) {
      for (const line of readFileSync(path.join(root, name), "utf8").split("\n")) {
        const body = encoder.encode(line);
        if (!canTranscode(body)) continue;
        expect(transcoded(body, 4096), `${name}: ${line.slice(0, 80)}`).toBe(parsedThenWritten(line));
        written++;
      }
    }
    expect(written).toBeGreaterThan(20);
  });

  it.each([
    ["a duplicate key", '{"a": 1, "b": 2, "a": 3}'],
    ["a duplicate key written two ways", String.raw`{"a": 1, "\u0061": 2}`],
    ["an index key after a named one", '{"a": 1, "0": 2}'],
    ["index keys out of order", '{"2": 1, "1": 2}'],
    ["a duplicate index key", '{"1": 1, "1": 2}'],
  ])("leaves %s to the parser (an object would reorder or merge it)", (_what, line) => {
    expect(canTranscode(encoder.encode(line))).toBe(false);
    expect(() => parsedThenWritten(line)).not.toThrow();
  });

  it.each([
    ["a trailing comma", '{"a": [1, 2,]}'],
    ["an unterminated string", '{"a": "b}'],
    ["a raw control character", '{"a": "b\u0001"}'],
    ["a bad escape", String.raw`{"a": "\x41"}`],
    ["a short \\u escape", String.raw`{"a": "\u12"}`],
    ["a leading zero", '{"a": 01}'],
    ["a bare dot", '{"a": 1.}'],
    ["an exponent without digits", '{"a": 1e}'],
    ["-NaN", '{"a": -NaN}'],
    ["a cut literal", '{"a": tru}'],
    ["text after the object", '{"a": 1} x'],
    ["a missing colon", '{"a" 1}'],
    ["a single quote", "{'a': 1}"],
    ["nesting past the cap", `{"a": ${"[".repeat(1000)}${"]".repeat(1000)}}`],
  ])("leaves %s to the parser, which gives its error", (_what, line) => {
    expect(canTranscode(encoder.encode(line))).toBe(false);
    expect(() => parsedThenWritten(line)).toThrow();
  });

  it("leaves a line that is not an object to the parser (a session line must be one)", () => {
    expect(canTranscode(encoder.encode("[1, 2]"))).toBe(false);
    expect(canTranscode(encoder.encode('"{}"'))).toBe(false);
  });

  it("writes nothing for a line it does not accept", () => {
    const chunks: Uint8Array[] = [];
    expect(transcodeStrictJson(encoder.encode('{"a": [1, 2, 3], "a": 2}'), (chunk) => chunks.push(chunk), { chunkBytes: 1 })).toBe(false);
    expect(chunks).toEqual([]);
  });
});
