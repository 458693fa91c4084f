import { describe, expect, it } from "vitest";
import { formatCount, formatLocalTime, plural } from "./format.js";

describe("formatCount", () => {
  it("writes counts with en-US grouping, as toLocaleString('en-US') does, integers without ICU", () => {
    for (const n of [0, 1, 7, 999, 1000, 10_025, 100_000, 1_234_567, 9_007_199_254_740_991, -999, -1000, -45_000, -1_000_000, 12.5, 1234.5678, 2 ** 60]) {
      expect(formatCount(n)).toBe(n.toLocaleString("en-US"));
    }
  });

  it("plural uses it", () => {
    expect(plural(1, "event")).toBe("1 event");
    expect(plural(10_025, "event")).toBe("10,025 events");
    expect(plural(2, "entry", "entries")).toBe("2 entries");
  });
});

describe("formatLocalTime", () => {
  it("writes an instant in the reader's time zone, to the second", () => {
    const iso = "2026-11-22T01:32:19.589822+00:00";
    const at = new Date(iso);
    const offset = -at.getTimezoneOffset();
    const local = new Date(at.getTime() + offset * 60_000).toISOString();
    expect(formatLocalTime(iso)).toBe(`${local.slice(0, 10)} ${local.slice(11, 19)}`);
    expect(formatLocalTime("2026-01-15T09:30:00+05:00")).toBe(formatLocalTime("2026-01-15T04:30:00Z"));
    expect(formatLocalTime("not a time")).toBe("not a time");
  });
});
