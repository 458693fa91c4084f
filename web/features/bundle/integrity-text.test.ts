import { describe, expect, it } from "vitest";
import type { BundleIntegrityResponse } from "../../api/bundle-api.js";
import { integrityText } from "./integrity-text.js";

const base: BundleIntegrityResponse = { algorithm: "sha256", supported: true, listed: 7, verified: 6, mismatched: [], missing: [], unlisted: ["debug_bundle/manifest.json"], unverified: ["debug_bundle/logs/app.jsonl"], complete: false, ok: null };

describe("integrityText", () => {
  it("says a member not read yet is not a failure (issue 32: '6 of 7 verified' read like one)", () => {
    const { text, bad } = integrityText(base);
    expect(bad).toBe(false);
    expect(text).toBe("6 match, 1 not read yet (none mismatched; the Manifest tab checks all)");
    expect(text).not.toMatch(/of 7 verified/);
  });
  it("says all match once every listed member was read", () => {
    expect(integrityText({ ...base, verified: 7, unverified: [], complete: true, ok: true })).toEqual({ text: "all 7 checksums match", bad: false });
  });
  it("names mismatched and missing members apart", () => {
    const mismatched = [{ member: "debug_bundle/config.json", expected: "a", actual: "b" }];
    expect(integrityText({ ...base, verified: 5, mismatched, missing: ["debug_bundle/x"], ok: false })).toEqual({ text: "1 mismatched, 1 missing of 7 listed", bad: true });
    expect(integrityText({ ...base, algorithm: "md5", supported: false })).toEqual({ text: "md5: not checked", bad: false });
  });
});
