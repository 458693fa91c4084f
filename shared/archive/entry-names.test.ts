import { describe, expect, it } from "vitest";
import { ArchiveError } from "../errors.js";
import { checkRelativePath, decodeEntryName, findGitMetadataSegment, isGitMetadataSegment, toFilesEntryName, validateEntryName } from "./entry-names.js";

function reasonOf(name: string, limits?: Parameters<typeof validateEntryName>[1]): string | null {
  try {
    validateEntryName(name, limits);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).entry).toBe(name);
    return (error as ArchiveError).data.reason as string;
  }
}

describe("validateEntryName", () => {
  it("accepts ordinary, unicode, option-like and Windows-reserved names", () => {
    for (const name of ["manifest.json", "files/src/main.ts", "files/unicode/café 日本語 🚀.txt", "files/-rf", "files/CON", "files/aux.txt", "files/trailing.", "files/ads.txt:secret", "files/..hidden", "files/.env"]) {
      expect(reasonOf(name), name).toBeNull();
    }
  });

  it("splits directory entries from their trailing slash", () => {
    expect(validateEntryName("files/emptydir/")).toEqual({ path: "files/emptydir", isDirectory: true });
    expect(validateEntryName("files/a.txt")).toEqual({ path: "files/a.txt", isDirectory: false });
  });

  it.each([
    ["", "empty"],
    ["/", "empty"],
    ["/etc/passwd", "absolute"],
    ["//server/share/x", "absolute"],
    ["C:/Windows/x", "drive"],
    ["C:x", "drive"],
    ["files/C:/x", "drive"],
    ["files\\x", "forbidden-character"],
    ["\\\\?\\C:\\x", "forbidden-character"],
    ["files/nul\u0000byte", "forbidden-character"],
    ["files/new\nline", "forbidden-character"],
    ["files/esc\u001b[31m", "forbidden-character"],
    ["files/del\u007f", "forbidden-character"],
    ["files/c1\u0085", "forbidden-character"],
    ["files/bidi\u202egnp.exe", "forbidden-character"],
    ["files/lone\ud800", "forbidden-character"],
    ["files/../x", "dot-segment"],
    ["files/a/..", "dot-segment"],
    ["..", "dot-segment"],
    ["files/./x", "dot-segment"],
    [".", "dot-segment"],
    ["files//x", "empty-segment"],
    ["files/x//", "empty-segment"],
  ])("refuses %j (%s)", (name, reason) => {
    expect(reasonOf(name)).toBe(reason);
  });

  it("limits segment bytes, path bytes and depth, counting UTF-8 bytes", () => {
    expect(reasonOf(`files/${"a".repeat(255)}`)).toBeNull();
    expect(reasonOf(`files/${"a".repeat(256)}`)).toBe("segment-too-long");
    expect(reasonOf(`files/${"é".repeat(127)}`)).toBeNull(); // 254 bytes
    expect(reasonOf(`files/${"é".repeat(128)}`)).toBe("segment-too-long"); // 256 bytes
    expect(reasonOf(`files/${"🚀".repeat(64)}`)).toBe("segment-too-long"); // 4 bytes each
    expect(reasonOf(`${"d/".repeat(63)}x`)).toBeNull(); // 64 segments
    expect(reasonOf(`${"d/".repeat(64)}x`)).toBe("too-deep");
    const long = Array.from({ length: 17 }, () => "s".repeat(250)).join("/");
    expect(reasonOf(long)).toBe("path-too-long");
    expect(reasonOf("a/b/c", { maxDepth: 2, maxPathBytes: 100, maxSegmentBytes: 10 })).toBe("too-deep");
  });

  it("reports length limits as E_ARCHIVE_LIMIT and the rest as E_ARCHIVE_ENTRY", () => {
    expect(() => validateEntryName(`x/${"a".repeat(300)}`)).toThrow(expect.objectContaining({ code: "E_ARCHIVE_LIMIT" }));
    expect(() => validateEntryName("../x")).toThrow(expect.objectContaining({ code: "E_ARCHIVE_ENTRY" }));
  });

  it("checkRelativePath names the given entry in its error", () => {
    expect(() => checkRelativePath("a/../b", "manifest.json")).toThrow(expect.objectContaining({ data: expect.objectContaining({ entry: "manifest.json" }) }));
  });
});

describe("decodeEntryName", () => {
  it("decodes UTF-8 and refuses invalid UTF-8 with the bytes in the error", () => {
    expect(decodeEntryName(new TextEncoder().encode("files/café.txt"))).toBe("files/café.txt");
    const invalid = Uint8Array.of(0x66, 0x2f, 0xff, 0xfe);
    let error: unknown;
    try {
      decodeEntryName(invalid);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).data).toMatchObject({ reason: "invalid-utf8", entryBytes: "662ffffe" });
  });

  it("refuses UTF-8-encoded surrogates and overlong encodings", () => {
    expect(() => decodeEntryName(Uint8Array.of(0xed, 0xa0, 0x80))).toThrow(ArchiveError); // U+D800
    expect(() => decodeEntryName(Uint8Array.of(0xc0, 0xaf))).toThrow(ArchiveError); // overlong "/"
  });
});

describe("git metadata segments", () => {
  it("match .git in any case, with ignorable code points, trailing dots/spaces, or as git~1", () => {
    for (const segment of [".git", ".GIT", ".Git", ".git\u200c", "\u200d.git", ".git.", ".git ", "GIT~1"]) expect(isGitMetadataSegment(segment), segment).toBe(true);
    for (const segment of [".gitignore", ".gitattributes", "git", ".github", "x.git"]) expect(isGitMetadataSegment(segment), segment).toBe(false);
    expect(findGitMetadataSegment("a/.Git/config")).toBe(".Git");
    expect(findGitMetadataSegment("a/b/c.txt")).toBeNull();
  });
});

describe("toFilesEntryName", () => {
  it("prefixes files/ and marks directories", () => {
    expect(toFilesEntryName("a/b.txt")).toBe("files/a/b.txt");
    expect(toFilesEntryName("a/b", true)).toBe("files/a/b/");
  });
});
