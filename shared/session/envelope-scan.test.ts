import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EnvelopeWindow } from "./envelope-scan.js";
import { scanEnvelope, scanEnvelopeWindow, summarizeSnapshot } from "./envelope-scan.js";
import { dumpsPython } from "./python-json-dumps.js";
import { parseSnapshotLine } from "./snapshot-line.js";
import { winkFixture } from "../../fixtures/paths.js";

const encoder = new TextEncoder();

function fullVerdict(text: string, lineNumber = 1): ReturnType<typeof scanEnvelope> {
  const parsed = parseSnapshotLine(text, lineNumber);
  return parsed.ok ? { ok: true, summary: summarizeSnapshot(parsed.snapshot) } : parsed;
}

const itemArb = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.record({ event_id: fc.uuid(), created_at: fc.string(), name: fc.string() }),
  fc.constantFrom<unknown>({ n: Number.NaN }, { big: 2n ** 80n }, { s: "\ud800 \"quoted\" \\ back" }),
);
const snapshotArb = fc.record(
  {
    version: fc.constantFrom("1", "2"),
    created_at: fc.constantFrom("2024-01-15T10:30:00+00:00", "not a date"),
    parent_id: fc.option(fc.uuid()),
    children_ids: fc.array(fc.uuid(), { maxLength: 3 }),
    slices: fc.array(
      fc.record(
        { slice_type: fc.constantFrom("m:A", "m.b:B", "weakincentives.runtime.events._types:ToolInvoked"), item_type: fc.constantFrom("m:A", "x:Y"), items: fc.array(itemArb, { maxLength: 4 }) },
        { requiredKeys: ["slice_type"] },
      ),
      { maxLength: 4 },
    ),
    tags: fc.record({ session_id: fc.string({ minLength: 1, maxLength: 8 }), agent: fc.string() }, { requiredKeys: ["session_id"] }),
    policies: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ["version", "created_at", "tags"] },
);

/** `body` seen `step` more bytes at a time; the bytes before `keepFrom` leave the view for good. */
function steppedWindow(body: Uint8Array, step: number): EnvelopeWindow {
  let start = 0;
  let end = Math.min(step, body.length);
  const window = {
    bytes: body.slice(0, end),
    advance(keepFrom: number): boolean {
      if (end >= body.length) return false;
      start += keepFrom;
      end = Math.min(end + step, body.length);
      window.bytes = body.slice(start, end);
      return true;
    },
  };
  return window;
}

describe("scanEnvelopeWindow", () => {
  it("summarises real WINK lines through windows of any size as the whole-line scan does", () => {
    for (const path of ["acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl", "fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.jsonl"]) {
      const lines = readFileSync(winkFixture(path), "utf8").trimEnd().split("\n");
      lines.forEach((line, index) => {
        const body = encoder.encode(line);
        const whole = scanEnvelope(body, index + 1);
        for (const step of [1, 2, 3, 5, 64, 1000]) expect(scanEnvelopeWindow(steppedWindow(body, step))).toEqual(whole.ok ? whole.summary : null);
      });
    }
  });

  it("agrees with the whole-line scan on random and corrupted lines, escapes and multi-byte characters cut anywhere", () => {
    fc.assert(
      fc.property(snapshotArb, fc.nat(), fc.constantFrom("", "}", "{", "[", '"', ",", "\\", "\\\\\"", "é€😀", "x"), fc.integer({ min: 1, max: 9 }), (snapshot, at, insert, step) => {
        const text = dumpsPython(snapshot, { sortKeys: true });
        const position = at % (text.length + 1);
        for (const line of [text, text.slice(0, position) + insert + text.slice(position)]) {
          const body = encoder.encode(line);
          expect(scanEnvelopeWindow(steppedWindow(body, step))).toEqual(scanEnvelopeWindow(steppedWindow(body, body.length)));
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe("scanEnvelope", () => {
  it("summarises real WINK lines exactly as a full parse does", () => {
    for (const path of ["acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl", "db5c4ea2-559a-52c5-8313-741e72978682.jsonl", "fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.jsonl"]) {
      const lines = readFileSync(winkFixture(path), "utf8").trimEnd().split("\n");
      lines.forEach((line, index) => {
        const scanned = scanEnvelope(encoder.encode(line), index + 1);
        expect(scanned.ok).toBe(true);
        expect(scanned).toEqual(fullVerdict(line, index + 1));
      });
    }
  });

  it("agrees with the full parse on random snapshot lines, sorted or not, compact or spaced", () => {
    fc.assert(
      fc.property(snapshotArb, fc.boolean(), (snapshot, sortKeys) => {
        for (const text of [dumpsPython(snapshot, { sortKeys }), JSON.stringify(snapshot, (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value))]) {
          expect(scanEnvelope(encoder.encode(text), 1)).toEqual(fullVerdict(text));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("gives the full parser's error for any line the full parser refuses (random corruptions)", () => {
    fc.assert(
      fc.property(snapshotArb, fc.nat(), fc.constantFrom("", "}", "{", "[", '"', ",", "\\", "NaN", "x", "\u0001", " "), (snapshot, at, insert) => {
        const text = dumpsPython(snapshot, { sortKeys: true });
        const position = at % (text.length + 1);
        const corrupted = text.slice(0, position) + insert + text.slice(position + (insert === "" ? 1 : 0));
        const full = fullVerdict(corrupted);
        const scanned = scanEnvelope(encoder.encode(corrupted), 1);
        if (!full.ok) {
          // The scan skips item bodies, so it may accept a line whose damage is inside one.
          if (!scanned.ok) expect(scanned).toEqual(full);
        } else {
          expect(scanned).toEqual(full);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses what the envelope rules refuse, with the same words", () => {
    for (const text of ["[]", "{", '{"version": "1", "created_at": "x", "tags": {}}', '{"version": "1", "created_at": "x", "tags": {"session_id": "s"}, "slices": [{"slice_type": "m:A", "items": [1]}]}', "[".repeat(2000)]) {
      const scanned = scanEnvelope(encoder.encode(text), 9);
      expect(scanned.ok).toBe(false);
      expect(scanned).toEqual(fullVerdict(text, 9));
    }
  });

  it("reads escaped keys and counts items without decoding them", () => {
    const text = '{"vers\\u0069on": "1", "created_at": "2024-01-15", "tags": {"session_id": "s"}, "slices": [{"slice_type": "m:Ev", "items": [{"created_at": "t", "event_id": "e", "body": "\\"}]{["}, {"x": [[], {}, "]"]}, {}]}]}';
    expect(scanEnvelope(encoder.encode(text), 1)).toEqual({
      ok: true,
      summary: expect.objectContaining({ version: "1", sessionId: "s", slices: [{ sliceType: "m:Ev", itemType: "m:Ev", displayName: "Ev", itemDisplayName: "Ev", count: 3, kind: "event" }] }),
    });
    expect(scanEnvelope(encoder.encode(text), 1)).toEqual(fullVerdict(text));
  });
});
