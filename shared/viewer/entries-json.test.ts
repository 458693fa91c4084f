// `/api/entries` of a big file is written from the index's columns (snapshotEntriesJson): the
// same text as the entry objects serialised, for awkward ids, tags and times too.
import { describe, expect, it } from "vitest";
import { SessionLines } from "../session/session-lines.js";
import type { SessionIndexEntry } from "../session/session-lines.js";
import { EventLoopSlices } from "../session/event-loop-slices.js";
import { strictJsonChunks } from "../session/strict-json.js";
import { lazySnapshotEntries, snapshotEntriesJson } from "./snapshot-view.js";

const ODD_IDS = ["s-1", 'quote " and \\ backslash', "é😀", "lone \ud800 surrogate", "tab\tnew\nline", "\u2028sep", ""];
const ODD_TIMES = ["2026-11-22T01:00:00.123456+00:00", "2026-11-22T01:00:00+00:00", "yesterday", "2026-02-30T00:00:00+00:00", "2026-11-22T01:00:00.000000+00:00", "2026-11-22T01:00:00Z"];

function entry(i: number, lineNumber: number): SessionIndexEntry {
  const sessionId = ODD_IDS[i % ODD_IDS.length] as string;
  return {
    version: "1",
    createdAt: ODD_TIMES[i % ODD_TIMES.length] as string,
    parentId: null,
    childrenIds: [],
    tags: i % 3 === 0 ? {} : { session_id: sessionId, "odd \"key\"": `value ${i % 5} \udfff`, agent: "écrit" },
    sessionId,
    validationErrors: [],
    slices: [],
    lineNumber,
    byteOffset: i * 100,
    byteLength: 99,
  };
}

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let all = "";
  for await (const chunk of chunks) all += chunk;
  return all;
}

describe("snapshotEntriesJson", () => {
  it("writes the text of the entry objects, from the columns", async () => {
    // Out of order line numbers too (a stored index may list them so), and a selected one.
    const numbers = Array.from({ length: 25_000 }, (_, i) => (i === 10 ? 5 : i + 1));
    const lines = SessionLines.from(numbers.map((lineNumber, i) => entry(i, lineNumber)));
    for (const selected of [7, null, 999_999]) {
      const expected = [...strictJsonChunks(lazySnapshotEntries("dir/ré \"x\".jsonl", lines.length, (at) => ({ lineNumber: lines.lineNumberAt(at), summary: lines.summaryAt(at) }), selected), { streamDepth: 1 })].join("");
      expect(await text(snapshotEntriesJson("dir/ré \"x\".jsonl", lines, selected))).toBe(expected);
    }
    expect(JSON.parse(await text(snapshotEntriesJson("f", lines, 7)))).toHaveLength(25_000);
  });

  it("writes an empty file as []", async () => {
    expect(await text(snapshotEntriesJson("f", SessionLines.from([]), null))).toBe("[]");
  });

  it("gives the event loop turns while it writes", async () => {
    const lines = SessionLines.from(Array.from({ length: 50_000 }, (_, i) => entry(i, i + 1)));
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    await text(snapshotEntriesJson("f", lines, null, new EventLoopSlices({ sliceMs: 1, callsPerClockRead: 16 })));
    clearInterval(ticking);
    expect(turns).toBeGreaterThan(0);
  });
});
