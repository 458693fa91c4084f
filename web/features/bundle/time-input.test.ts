import { describe, expect, it } from "vitest";
import { clockOf, timeFromInput } from "./time-input.js";

const FIRST = "2026-11-26T05:45:34.976984+00:00";

describe("timeFromInput", () => {
  it("takes a wall-clock time on the log's day and offset", () => {
    expect(timeFromInput("05:45:35", FIRST)).toBe("2026-11-26T05:45:35+00:00");
    expect(timeFromInput("5:45", FIRST)).toBe("2026-11-26T05:45:00+00:00");
    expect(timeFromInput(" 05:45:35.250 ", FIRST)).toBe("2026-11-26T05:45:35.250+00:00");
    expect(timeFromInput("05:45:35", "2026-11-26T05:45:34-05:00")).toBe("2026-11-26T05:45:35-05:00");
  });

  it("takes an offset from the first record", () => {
    expect(timeFromInput("+2s", FIRST)).toBe("2026-11-26T05:45:36.976Z");
    expect(timeFromInput("+250ms", FIRST)).toBe("2026-11-26T05:45:35.226Z");
    expect(timeFromInput("+1.5m", FIRST)).toBe("2026-11-26T05:47:04.976Z");
  });

  it("passes a full ISO time through and refuses what names no time", () => {
    expect(timeFromInput("2026-11-26T05:45:40Z", FIRST)).toBe("2026-11-26T05:45:40Z");
    expect(timeFromInput("yesterday", FIRST)).toBeNull();
    expect(timeFromInput("25:00", FIRST)).toBeNull();
    expect(timeFromInput("05:45", null)).toBeNull();
    expect(timeFromInput("", FIRST)).toBeNull();
  });
});

describe("clockOf", () => {
  it("keeps the time as written, to the millisecond", () => {
    expect(clockOf(FIRST)).toBe("05:45:34.976");
    expect(clockOf("2026-11-26T05:45:34+00:00")).toBe("05:45:34");
    expect(clockOf("not a time")).toBe("not a time");
  });
});
