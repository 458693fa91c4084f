// A page whose data was fetched before its event stream opened may have missed a change: the
// stream's `hello` says when the server last sent one.
import { describe, expect, it } from "vitest";
import { missedChange } from "./shared-events.js";

describe("missedChange", () => {
  const pageStart = 1_700_000_000_000;
  it("is true when the server's last change came after the page started", () => {
    expect(missedChange(JSON.stringify({ current: null, changed_at: pageStart + 5 }), pageStart)).toBe(true);
    expect(missedChange(JSON.stringify({ changed_at: pageStart }), pageStart)).toBe(true);
  });
  it("is false for a change before the page started, none yet, or a hello it cannot read", () => {
    expect(missedChange(JSON.stringify({ changed_at: pageStart - 1 }), pageStart)).toBe(false);
    expect(missedChange(JSON.stringify({ current: null, changed_at: null }), pageStart)).toBe(false);
    expect(missedChange(JSON.stringify({ current: null }), pageStart)).toBe(false);
    expect(missedChange("not json", pageStart)).toBe(false);
    expect(missedChange(null, pageStart)).toBe(false);
  });
  it("tells a missed `indexed` apart from a missed change", () => {
    const hello = JSON.stringify({ changed_at: pageStart - 10, indexed_at: pageStart + 5 });
    expect(missedChange(hello, pageStart)).toBe(false);
    expect(missedChange(hello, pageStart, "indexed_at")).toBe(true);
  });
});
