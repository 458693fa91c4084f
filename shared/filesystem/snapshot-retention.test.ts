import { describe, expect, it } from "vitest";

import { InvalidArgumentError } from "../errors.js";
import { selectSnapshotsToPrune } from "./snapshot-retention.js";
import type { FilesystemSnapshot } from "./snapshot-contract.js";

const HOUR = 3_600_000;
const NOW = Date.parse("2025-06-01T12:00:00Z");

function record(id: string, hoursAgo: number, tag: string | null = null): FilesystemSnapshot {
  return {
    snapshotId: id,
    createdAt: new Date(NOW - hoursAgo * HOUR).toISOString(),
    parentId: null,
    tag,
    fileCount: 0,
    totalBytes: 0,
    backend: "host",
    strategy: "git",
    commitRef: "0".repeat(40),
    rootPath: "/w",
  };
}

const ids = (records: FilesystemSnapshot[]): string[] => records.map((r) => r.snapshotId);

describe("selectSnapshotsToPrune", () => {
  const records = [record("a", 50), record("b", 40, "release"), record("c", 30), record("d", 20), record("e", 10), record("f", 1)];

  it("keeps the newest maxCount and prunes the rest, oldest first", () => {
    expect(ids(selectSnapshotsToPrune(records, { maxCount: 3, keepTagged: false }, { now: NOW }))).toEqual(["a", "b", "c"]);
  });

  it("never prunes tagged snapshots with keepTagged, which use up slots", () => {
    expect(ids(selectSnapshotsToPrune(records, { maxCount: 3 }, { now: NOW }))).toEqual(["a", "c", "d"]);
    expect(ids(selectSnapshotsToPrune(records, { maxCount: 0 }, { now: NOW }))).toEqual(["a", "c", "d", "e", "f"]);
  });

  it("prunes by age, and count applies to what is left", () => {
    expect(ids(selectSnapshotsToPrune(records, { maxCount: 10, maxAgeHours: 25 }, { now: NOW }))).toEqual(["a", "c"]);
    expect(ids(selectSnapshotsToPrune(records, { maxCount: 2, maxAgeHours: 25 }, { now: NOW }))).toEqual(["a", "c", "d", "e"]);
  });

  it("keeps protected ids whatever the policy says", () => {
    expect(ids(selectSnapshotsToPrune(records, { maxCount: 1, maxAgeHours: 0, keepTagged: false }, { now: NOW, protect: ["a"] }))).toEqual(["b", "c", "d", "e", "f"]);
  });

  it("defaults to 10 snapshots, no age limit, tagged kept", () => {
    const many = Array.from({ length: 14 }, (_, i) => record(`s${i}`, 14 - i, i === 0 ? "first" : null));
    expect(ids(selectSnapshotsToPrune(many, {}, { now: NOW }))).toEqual(["s1", "s2", "s3", "s4"]);
  });

  it("rejects nonsense policies", () => {
    expect(() => selectSnapshotsToPrune(records, { maxCount: -1 })).toThrow(InvalidArgumentError);
    expect(() => selectSnapshotsToPrune(records, { maxCount: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => selectSnapshotsToPrune(records, { maxAgeHours: Number.NaN })).toThrow(InvalidArgumentError);
  });
});
