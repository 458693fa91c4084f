import { describe, expect, it } from "vitest";
import { facetState, logsParams, nestsToolResults, transcriptParams, withFacet } from "./facet-filters.js";

describe("facet filters of the logs and transcript panels", () => {
  it("become the API's include and exclude lists, leaving out what is not filtered", () => {
    const filters = [
      { facet: "level", value: "ERROR", include: true },
      { facet: "level", value: "WARNING", include: true },
      { facet: "logger", value: "asyncio", include: false },
    ];
    expect(logsParams(filters, "tool")).toEqual({ level: ["ERROR", "WARNING"], exclude_logger: ["asyncio"], search: "tool" });
    expect(logsParams([], "")).toEqual({});
    expect(transcriptParams([{ facet: "entry_type", value: "tool_use", include: false }], undefined)).toEqual({ exclude_entry_type: ["tool_use"] });
  });

  it("keeps, leaves out or clears one value per click", () => {
    const kept = withFacet([], "level", "ERROR", "include");
    expect(facetState(kept, "level", "ERROR")).toBe("include");
    const dropped = withFacet(kept, "level", "ERROR", "exclude");
    expect(dropped).toEqual([{ facet: "level", value: "ERROR", include: false }]);
    expect(withFacet(dropped, "level", "ERROR", null)).toEqual([]);
    expect(facetState(dropped, "level", "DEBUG")).toBeNull();
  });

  it("nests tool results under their use only while both are shown and no search can split them", () => {
    expect(nestsToolResults([], undefined)).toBe(true);
    expect(nestsToolResults([], "read_file")).toBe(false);
    expect(nestsToolResults([{ facet: "entry_type", value: "tool_result", include: false }], undefined)).toBe(false);
    expect(nestsToolResults([{ facet: "entry_type", value: "user_message", include: true }], undefined)).toBe(false);
    expect(
      nestsToolResults(
        [
          { facet: "entry_type", value: "tool_use", include: true },
          { facet: "entry_type", value: "tool_result", include: true },
        ],
        undefined,
      ),
    ).toBe(true);
    expect(nestsToolResults([{ facet: "entry_type", value: "thinking", include: false }], undefined)).toBe(true);
  });
});
