import { describe, expect, it } from "vitest";
import type { SessionIndexEntry } from "./session-lines.js";
import { SessionLines } from "./session-lines.js";

function entry(lineNumber: number, createdAt: string, sessionId = "s"): SessionIndexEntry {
  return {
    version: "1",
    createdAt,
    parentId: null,
    childrenIds: [],
    tags: { session_id: sessionId },
    sessionId,
    validationErrors: [],
    slices: [{ sliceType: "m:N", itemType: "m:N", displayName: "N", itemDisplayName: "N", count: lineNumber, kind: "state" }],
    lineNumber,
    byteOffset: lineNumber * 100,
    byteLength: 99,
  };
}

describe("SessionLines", () => {
  it("keeps line numbers and lengths in 32 bits a line, widened when one does not fit (issue 29, item 5)", () => {
    const time = "2026-11-22T01:00:39.999999+00:00";
    const { slices } = entry(1, time);
    const plain = SessionLines.from(Array.from({ length: 10_000 }, (_, i) => ({ ...entry(i + 1, time), slices })));
    // Line number 4, offset 8, length 4, shape ordinal 4, time 8, its kind 1 (was 37 with 64-bit numbers and lengths).
    expect((plain.byteSize - 400) / plain.length).toBe(29);
    const past = [entry(1, time), { ...entry(2, time), byteLength: 2 ** 32 + 5 }, { ...entry(2 ** 32 + 7, time), byteOffset: 2 ** 40 }, entry(2 ** 33, time)];
    const lines = SessionLines.from(past);
    expect(lines.toArray()).toEqual(past);
    expect(lines.ofLine(2 ** 32 + 7)?.byteOffset).toBe(2 ** 40);
    expect(lines.lineNumberAt(3)).toBe(2 ** 33);
  });

  it("gives back every entry as it was added, whatever form its time has", () => {
    const times = [
      "2026-11-22T01:00:39.999999+00:00",
      "2026-11-22T01:00:39+00:00",
      "2026-11-22T01:00:39.000000+00:00",
      "2026-02-30T01:00:39.000001+00:00",
      "2026-11-22T01:00:39.123+01:00",
      "1200-01-01T00:00:00.000001+00:00",
      "not a time",
    ];
    const entries = times.map((time, i) => entry(i + 1, time, `s-${i % 2}`));
    const lines = SessionLines.from(entries);
    expect(lines.length).toBe(entries.length);
    expect(lines.toArray()).toEqual(entries);
    expect([...lines]).toEqual(entries);
    expect(lines.at(-1)).toEqual(entries.at(-1));
    expect(lines.at(entries.length)).toBeUndefined();
  });

  it("finds a line by its number, and a session's first and last lines", () => {
    const entries = [1, 3, 4, 9, 10].map((n) => entry(n, "2026-11-22T01:00:39+00:00", n % 2 === 0 ? "even" : "odd"));
    const lines = SessionLines.from(entries);
    for (const wanted of entries) expect(lines.ofLine(wanted.lineNumber)).toEqual(wanted);
    expect(lines.ofLine(2)).toBeUndefined();
    expect(lines.ofLine(11)).toBeUndefined();
    expect(lines.ofSession("odd")?.lineNumber).toBe(1);
    expect(lines.ofSession("odd", true)?.lineNumber).toBe(9);
    expect(lines.ofSession("none")).toBeUndefined();
    expect(lines.ofSessionAll("even").map((found) => found.lineNumber)).toEqual([4, 10]);
    expect(lines.ofSessionAll("none")).toEqual([]);
    // Out of order (never from a scan, but from entries given): still found.
    expect(SessionLines.from([entries[2], entries[0]] as SessionIndexEntry[]).ofLine(1)?.lineNumber).toBe(1);
  });

  it("keeps one shape for the lines that say the same, and counts its bytes by column", () => {
    const lines = new SessionLines();
    const { createdAt: _, lineNumber: _l, byteOffset: _o, byteLength: _b, ...shape } = entry(1, "");
    for (let i = 1; i <= 100_000; i++) lines.add({ lineNumber: i, byteOffset: i * 10, byteLength: 9 }, shape, `2026-11-22T01:00:${String(i % 60).padStart(2, "0")}.${String(i).padStart(6, "0")}+00:00`, "same");
    lines.seal();
    expect(lines.byteSize / 100_000).toBeLessThan(40);
    expect(lines.at(99_999)).toMatchObject({ lineNumber: 100_000, byteOffset: 1_000_000, createdAt: "2026-11-22T01:00:40.100000+00:00", sessionId: "s" });
    expect(lines.at(0)?.tags).toBe(lines.at(99_999)?.tags);
  });

  it("keeps equal summaries of entries it is made of once (a stored index read back costs what its scan did)", () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => entry(i + 1, "2026-11-22T01:00:39.000001+00:00", `s-${i % 3}`));
    // Counts differ per line in `entry`: give them one count so they share a shape per session.
    const same = entries.map((one) => ({ ...one, slices: entries[0]?.slices ?? [] }));
    const lines = SessionLines.from(same);
    expect(lines.toArray()).toEqual(same);
    expect(lines.byteSize / same.length).toBeLessThan(40);
  });
});
