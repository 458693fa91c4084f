import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "./json-value.js";
import { dumpsPython } from "./python-json-dumps.js";
import { parseJsonLinesText, parseSessionText } from "./session-text.js";
import { toStrictJson } from "./strict-json.js";
import { WINK_FIXTURES, securityFixture } from "../../fixtures/paths.js";

const FIXTURES = WINK_FIXTURES;
const HOSTILE = securityFixture("hostile-session.jsonl");
const HOSTILE_EXPECT = securityFixture("hostile-session.expect.jsonl");

type Outcome = "loads" | "skipped" | "error";

/**
 * Where our outcome differs from hostile-session.expect.jsonl, and why. Everything else is
 * checked against the expect file as written.
 */
const OUR_CHOICES: Readonly<Record<number, { outcome: Outcome; why: string }>> = {
  9: { outcome: "loads", why: "MISSION.md: WINK writes bare NaN and it must load; the expect file's error-line is overruled" },
  15: { outcome: "error", why: "policy: fatal UTF-8 decoding (no U+FFFD substitution)" },
  16: { outcome: "error", why: "policy: fatal UTF-8 decoding refuses overlong forms" },
  17: { outcome: "error", why: "policy: fatal UTF-8 decoding refuses UTF-8-encoded surrogates (CESU-8)" },
  19: {
    outcome: "error",
    why: "the file holds raw bytes ED A0 80 (an encoded surrogate, like line 17), not the JSON escape its note describes; the escape itself is tested below",
  },
  38: { outcome: "error", why: "policy: nesting is capped at 1,000 levels" },
};

function expectedOutcome(lineNumber: number, expect: string): Outcome {
  const ours = OUR_CHOICES[lineNumber];
  if (ours !== undefined) return ours.outcome;
  if (expect === "skip") return "skipped";
  if (expect === "error-line") return "error";
  if (expect.startsWith("parse")) return "loads";
  throw new Error(`line ${lineNumber}: policy "${expect}" without a recorded choice`);
}

const hostileBytes = new Uint8Array(readFileSync(HOSTILE));
const expectations = readFileSync(HOSTILE_EXPECT, "utf8")
  .trimEnd()
  .split("\n")
  .map((text) => JSON.parse(text) as { line: number; expect: string; why: string });

describe("hostile-session.jsonl at the JSON-line layer", () => {
  const result = parseJsonLinesText(hostileBytes);
  const records = new Map(result.records.map((record) => [record.lineNumber, record.value]));
  const errors = new Map(result.errors.map((error) => [error.lineNumber, error]));

  it("counts every physical line, the last one without a newline included", () => {
    expect(hostileBytes[hostileBytes.length - 1]).not.toBe(0x0a);
    expect(result.lineCount).toBe(expectations.length);
  });

  it.each(expectations)("line $line ($expect): $why", ({ line, expect: expected }) => {
    const outcome: Outcome = records.has(line) ? "loads" : errors.has(line) ? "error" : "skipped";
    expect(outcome).toBe(expectedOutcome(line, expected));
    if (outcome === "error") expect(errors.get(line)?.reason).toMatch(/\S/);
  });

  it("says why each refused line failed", () => {
    expect(errors.get(6)?.reason).toContain("unterminated string");
    expect(errors.get(11)?.reason).toBe("Expected a JSON object, found null");
    expect(errors.get(15)).toMatchObject({ kind: "encoding", reason: "Invalid UTF-8 at byte 34 of the line" });
    expect(errors.get(18)?.kind).toBe("encoding");
    expect(errors.get(37)?.reason).toContain("nesting deeper than 1000 levels");
    expect(errors.get(38)?.reason).toContain("nesting deeper than 1000 levels");
  });

  it("loads the records with their values intact and never pollutes prototypes", () => {
    expect(records.get(1)).toEqual({ type: "message", role: "user", session_id: "s1", content: "hello" });
    expect(records.get(5)?.content).toBe("hello");
    expect(records.get(9)?.a).toBeNaN();
    const proto = records.get(20)!;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value).toEqual({ polluted: true });
    expect(Object.getOwnPropertyDescriptor(records.get(21)?.meta as JsonObject, "__proto__")?.value).toEqual({ isAdmin: true });
    expect(records.get(23)).toMatchObject({ hasOwnProperty: 1, toString: "x", valueOf: null });
    expect(records.get(24)?.role).toBe("system");
    expect(records.get(25)).toMatchObject({ n: Number.POSITIVE_INFINITY, m: Number.NEGATIVE_INFINITY, z: -0 });
    expect(records.get(26)?.id).toBe(18446744073709551617n);
    expect(records.get(33)?.content).toBe("line\u2028sep\u2029para");
    expect(records.get(40)?.content).toBe("no trailing newline");
    const polluted = {} as Record<string, unknown>;
    expect([polluted.polluted, polluted.isAdmin, polluted.polluted2]).toEqual([undefined, undefined, undefined]);
    for (const value of records.values()) expect(() => JSON.parse(toStrictJson(value))).not.toThrow();
  });

  it("keeps a lone surrogate from a JSON escape and sends it as valid JSON (what line 19 meant)", () => {
    const { records: escaped } = parseJsonLinesText('{"type": "message", "content": "lone \\ud800 surrogate escape"}\n');
    const content = escaped[0]?.value.content as string;
    expect(content.charCodeAt(5)).toBe(0xd800);
    expect(toStrictJson(escaped[0]?.value)).toContain("lone \\ud800 surrogate");
    expect(dumpsPython(escaped[0]?.value, { sortKeys: true })).toBe('{"content": "lone \\ud800 surrogate escape", "type": "message"}');
  });

  it("gives the same verdicts for the file decoded leniently to a string, except where bytes were replaced", () => {
    const fromText = parseJsonLinesText(new TextDecoder().decode(hostileBytes));
    expect(fromText.lineCount).toBe(result.lineCount);
    // With U+FFFD substituted, lines 15-17 and 19 become valid JSON; line 18 stays cut off.
    const replaced = [15, 16, 17, 19];
    expect(fromText.records.map((record) => record.lineNumber)).toEqual([...records.keys(), ...replaced].sort((a, b) => a - b));
    expect(fromText.records.filter((record) => !replaced.includes(record.lineNumber))).toEqual(result.records);
  });
});

describe("hostile-session.jsonl at the snapshot layer", () => {
  it("reports every hostile line as an error line and still loads the valid snapshots between them", () => {
    // Interleave: after each hostile line, a valid snapshot line naming that line.
    const hostileLines: Uint8Array[] = [];
    let start = 0;
    for (let i = 0; i <= hostileBytes.length; i++) {
      if (i === hostileBytes.length || hostileBytes[i] === 0x0a) {
        hostileLines.push(hostileBytes.subarray(start, i));
        start = i + 1;
      }
    }
    const parts: Uint8Array[] = [];
    hostileLines.forEach((bytes, index) => {
      const snapshot = { version: "1", created_at: "2024-01-15T10:30:00+00:00", slices: [], tags: { session_id: `valid-${index + 1}` } };
      parts.push(bytes, new TextEncoder().encode(`\n${dumpsPython(snapshot, { sortKeys: true })}\n`));
    });
    const file = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      file.set(part, offset);
      offset += part.length;
    }

    const result = parseSessionText(file);
    expect(result.lineCount).toBe(hostileLines.length * 2);
    expect(result.snapshots.map((snapshot) => [snapshot.sessionId, snapshot.lineNumber])).toEqual(
      hostileLines.map((_, index) => [`valid-${index + 1}`, 2 * index + 2]),
    );
    const blank = new Set([3, 4].map((line) => 2 * line - 1));
    const expectedErrors = hostileLines.map((_, index) => 2 * index + 1).filter((line) => !blank.has(line));
    expect(result.errors.map((error) => error.lineNumber)).toEqual(expectedErrors);
    // Records that parse as JSON fail on the envelope: generic messages have no session_id.
    expect(result.errors.find((error) => error.lineNumber === 3)).toEqual({ lineNumber: 3, kind: "envelope", reason: "version is missing (not a session snapshot line?)" });
  });
});

describe("parseSessionText on WINK's files and behaviours", () => {
  const files = readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
    .map((name) => join(FIXTURES, name))
    .filter((path) => path.endsWith(".jsonl") && statSync(path).isFile());

  it.each(files)("loads %s", (path) => {
    const bytes = new Uint8Array(readFileSync(path));
    const result = parseSessionText(bytes);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(result.lineCount).toBe(lines.length);
    if (path.endsWith("missing-session-id.jsonl")) {
      expect(result.snapshots).toEqual([]);
      expect(result.errors).toEqual([{ lineNumber: 1, kind: "envelope", reason: "tags.session_id is missing (every snapshot line needs a session id)" }]);
    } else {
      expect(result.errors).toEqual([]);
      expect(result.snapshots.map((snapshot) => snapshot.lineNumber)).toEqual(lines.map((_, index) => index + 1));
      expect(result.snapshots.map((snapshot) => dumpsPython(snapshot.raw, { sortKeys: true }))).toEqual(lines);
      expect(parseSessionText(readFileSync(path, "utf8")).snapshots).toEqual(result.snapshots);
    }
  });

  it("keeps the original's loading behaviours: empty file, invalid JSON, blank lines, physical numbers", () => {
    expect(parseSessionText("")).toEqual({ snapshots: [], errors: [], lineCount: 0 });
    expect(parseSessionText("{").errors).toMatchObject([{ lineNumber: 1, kind: "json" }]);
    const snapshot = (id: string): string => dumpsPython({ version: "1", created_at: "2024-01-15T10:30:00+00:00", tags: { session_id: id } }, { sortKeys: true });
    const text = `\n  \n${snapshot("a")}\r\n\t\n${snapshot("b")}\n\n`;
    const result = parseSessionText(`\ufeff${text}`);
    expect(result.snapshots.map((s) => [s.sessionId, s.lineNumber])).toEqual([["a", 3], ["b", 5]]);
    expect(result.errors).toEqual([]);
    expect(result.lineCount).toBe(6);
  });

  it("reports lines over maxLineBytes as too long, and the next line still loads", () => {
    const big = dumpsPython({ version: "1", created_at: "2024-01-15", tags: { session_id: "big" }, pad: "x".repeat(5000) }, { sortKeys: true });
    const small = dumpsPython({ version: "1", created_at: "2024-01-15", tags: { session_id: "small" } }, { sortKeys: true });
    const result = parseSessionText(new TextEncoder().encode(`${big}\n${small}`), { maxLineBytes: 1000 });
    expect(result.errors).toEqual([{ lineNumber: 1, kind: "too-long", reason: expect.stringContaining(`${big.length.toLocaleString("en-US")} bytes, over the limit of 1,000 bytes`) }]);
    expect(result.snapshots.map((s) => s.sessionId)).toEqual(["small"]);
  });
});
