import { describe, expect, it } from "vitest";
import { ArchiveError, InvalidArgumentError } from "../errors.js";
import { buildManifest, formatCreatedAt, parseManifest, serializeManifest } from "./manifest.js";

const base = { version: "1", created_at: "2024-01-15T10:30:00.123456+00:00", file_count: 1, total_bytes: 3 };

function manifestError(value: unknown, source?: Parameters<typeof parseManifest>[1]): ArchiveError {
  try {
    parseManifest(typeof value === "string" ? value : JSON.stringify(value), source);
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).code).toBe("E_ARCHIVE_MANIFEST");
    return error as ArchiveError;
  }
  throw new Error("expected the manifest to be refused");
}

describe("parseManifest", () => {
  it("reads the four required keys and the optional lists", () => {
    const manifest = parseManifest(
      JSON.stringify({
        ...base,
        files: [{ path: "a/b.txt", size_bytes: 3, sha256: "DC51B8C96C2D745DF3BD5590D990230A482FD247123599548E0632FDBF97FC22" }, { path: "c", size_bytes: 0 }],
        directories: ["empty", "empty"],
        session_id: "s1",
        unknown: { deep: true },
      }),
    );
    expect(manifest).toEqual({
      source: "manifest.json",
      version: "1",
      createdAt: base.created_at,
      fileCount: 1,
      totalBytes: 3,
      files: [
        { path: "a/b.txt", sizeBytes: 3, sha256: "dc51b8c96c2d745df3bd5590d990230a482fd247123599548e0632fdbf97fc22" },
        { path: "c", sizeBytes: 0, sha256: null },
      ],
      directories: ["empty"],
      sessionId: "s1",
      rootPath: null,
    });
  });

  it("reads the seed's manifest (Python json.dumps with indent=2) and _wink_metadata.json", () => {
    const seed = '{\n  "version": "1",\n  "created_at": "2024-01-15T10:30:00+00:00",\n  "file_count": 42,\n  "total_bytes": 123456\n}';
    expect(parseManifest(seed)).toMatchObject({ fileCount: 42, totalBytes: 123456, files: null, directories: null });
    const wink = parseManifest(new TextEncoder().encode(JSON.stringify({ ...base, session_id: "0f5f", root_path: "/" })), "_wink_metadata.json");
    expect(wink).toMatchObject({ source: "_wink_metadata.json", sessionId: "0f5f", rootPath: "/" });
  });

  it.each([
    [{ ...base, version: 1 }, "version"],
    [{ ...base, version: "2" }, "version"],
    [{ ...base, created_at: 5 }, "created_at"],
    [{ ...base, file_count: -1 }, "file_count"],
    [{ ...base, file_count: 1.5 }, "file_count"],
    [{ ...base, file_count: "1" }, "file_count"],
    [{ ...base, total_bytes: 2 ** 53 }, "total_bytes"],
    [{ version: "1", created_at: "x", file_count: 1 }, "total_bytes"],
    [{ ...base, files: {} }, "files"],
    [{ ...base, files: [{ path: "../x", size_bytes: 1 }] }, "files[0].path"],
    [{ ...base, files: [{ path: "a", size_bytes: 1 }, { path: "a", size_bytes: 1 }] }, "files[1].path"],
    [{ ...base, files: [{ path: "a", size_bytes: 1, sha256: "abc" }] }, "files[0].sha256"],
    [{ ...base, directories: ["/abs"] }, "directories[0]"],
    [{ ...base, session_id: 7 }, "session_id"],
  ])("refuses %j at %s", (value, field) => {
    expect(manifestError(value).data.field).toBe(field);
  });

  it("refuses Infinity (1e400), invalid JSON, non-objects and non-UTF-8", () => {
    expect(manifestError('{"version":"1","created_at":"x","file_count":1e400,"total_bytes":0}').message).toContain("Infinity");
    expect(manifestError('{"version":"1",}').message).toContain("not valid JSON");
    expect(manifestError("[1]").message).toContain("JSON object");
    expect(() => parseManifest(Uint8Array.of(0x7b, 0xff, 0x7d))).toThrow(/not UTF-8/);
  });

  it("copies only known keys: __proto__ and constructor never reach a prototype", () => {
    const text = '{"version":"1","created_at":"x","file_count":1,"total_bytes":3,"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted2":"yes"}},"files":[{"path":"ok.txt","size_bytes":3,"__proto__":{"size_bytes":999}}]}';
    const manifest = parseManifest(text);
    expect(manifest.files).toEqual([{ path: "ok.txt", sizeBytes: 3, sha256: null }]);
    expect(Object.getPrototypeOf(manifest)).toBe(Object.prototype);
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).toBeUndefined();
    expect(probe.polluted2).toBeUndefined();
  });

  it("names the manifest file in every error", () => {
    expect(manifestError({ ...base, version: "2" }, "_wink_metadata.json").entry).toBe("_wink_metadata.json");
  });
});

describe("formatCreatedAt", () => {
  it("writes Python's isoformat with microseconds, omitting a zero fraction as Python does", () => {
    expect(formatCreatedAt(new Date(Date.UTC(2024, 0, 15, 10, 30, 0, 123)))).toBe("2024-01-15T10:30:00.123000+00:00");
    expect(formatCreatedAt(new Date(Date.UTC(2024, 0, 15, 10, 30, 0, 0)))).toBe("2024-01-15T10:30:00+00:00");
  });
});

describe("buildManifest", () => {
  it("computes counts, keeps extra keys, and parses back", () => {
    const manifest = buildManifest({
      createdAt: "2024-01-15T10:30:00+00:00",
      files: [
        { path: "a", sizeBytes: 2, sha256: "0".repeat(64) },
        { path: "b/c", sizeBytes: 5, sha256: "1".repeat(64) },
      ],
      directories: ["d"],
      extra: { session_id: "s", __proto__: { evil: true } } as Record<string, unknown>,
    });
    expect(Object.keys(manifest)).toEqual(["version", "created_at", "file_count", "total_bytes", "session_id", "files", "directories"]);
    const parsed = parseManifest(serializeManifest(manifest));
    expect(parsed).toMatchObject({ fileCount: 2, totalBytes: 7, directories: ["d"], sessionId: "s" });
    expect(parsed.files?.[1]).toEqual({ path: "b/c", sizeBytes: 5, sha256: "1".repeat(64) });
  });

  it("keeps an own __proto__ key as data", () => {
    const extra = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    const manifest = buildManifest({ files: [], extra });
    expect(Object.getPrototypeOf(manifest)).toBe(Object.prototype);
    expect(JSON.parse(new TextDecoder().decode(serializeManifest(manifest))).__proto__).toEqual({ x: 1 });
  });

  it("refuses reserved and unserialisable extra keys", () => {
    expect(() => buildManifest({ files: [], extra: { version: "2" } })).toThrow(InvalidArgumentError);
    expect(() => buildManifest({ files: [], extra: { big: 1n } })).toThrow(InvalidArgumentError);
    expect(() => buildManifest({ files: [], extra: { fn: () => 1 } })).toThrow(InvalidArgumentError);
  });
});
