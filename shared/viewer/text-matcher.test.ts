// A regular expression runs on at most MAX_REGEX_INPUT characters of one string, and the
// matcher counts the strings it cut so a search can say its answer is partial (issue 29, item 6).
import { describe, expect, it } from "vitest";
import { MAX_REGEX_INPUT, createMatcher } from "./text-matcher.js";

describe("createMatcher with regex", () => {
  it("matches short strings in full and counts nothing as cut", () => {
    const matcher = createMatcher("b+$", { regex: true });
    expect(matcher.first("aabbb")).toEqual({ index: 2, length: 3 });
    expect(matcher.clippedInputs).toBe(0);
  });

  it("runs on the first MAX_REGEX_INPUT characters of a longer string, refuses a match the cut made, and counts the cut", () => {
    const matcher = createMatcher("\\s+$|needle", { regex: true });
    const long = `${" ".repeat(MAX_REGEX_INPUT + 10)}x`;
    // `\s+$` would match the spaces up to the cut: that match exists only because of the cut.
    expect(matcher.first(long)).toBeNull();
    expect(matcher.first(`needle${long}`)).toEqual({ index: 0, length: 6 });
    expect(matcher.first(`${long}needle`)).toBeNull();
    expect(matcher.clippedInputs).toBe(3);
  });

  it("a substring search is never cut", () => {
    const matcher = createMatcher("needle");
    expect(matcher.first(`${" ".repeat(MAX_REGEX_INPUT * 2)}needle`)).toEqual({ index: MAX_REGEX_INPUT * 2, length: 6 });
    expect(matcher.clippedInputs).toBe(0);
  });
});
