/** conformance.md 3.14: the path helpers, ported from the original's tests. */
import { describe, expect, it } from "vitest";
import { MAX_PATH_DEPTH, MAX_SEGMENT_LENGTH, normalizePath, normalizePathString, resolveWorkspacePath, stripMountPoint, validatePath } from "./paths.js";

describe("limits", () => {
  it("are 16 segments of 80 characters", () => {
    expect(MAX_PATH_DEPTH).toBe(16);
    expect(MAX_SEGMENT_LENGTH).toBe(80);
  });
});

describe("normalizePathString (clamping)", () => {
  it.each([
    ["", ""],
    [".", ""],
    ["/", ""],
    ["  /a/b/  ", "a/b"],
    ["a//b", "a/b"],
    ["a/./b", "a/b"],
    ["a/b/../c", "a/c"],
    ["a/b/c/../../d", "a/d"],
    ["../foo", "foo"],
    ["foo/../../bar", "bar"],
    ["foo/../", ""],
    ["../../file.txt", "file.txt"],
    ["dir/../../../file.txt", "file.txt"],
  ])("%j → %j", (input, expected) => {
    expect(normalizePathString(input)).toBe(expected);
    expect(normalizePath(input)).toBe(expected);
  });
});

describe("validatePath", () => {
  const segments = (n: number): string => Array.from({ length: n }, (_, i) => `s${i}`).join("/");
  it("accepts the root, 16 segments and 80-character segments", () => {
    expect(() => validatePath("")).not.toThrow();
    expect(() => validatePath(segments(16))).not.toThrow();
    expect(() => validatePath("a".repeat(80))).not.toThrow();
    expect(() => validatePath("é".repeat(80))).not.toThrow();
  });
  it("refuses 17 segments and 81-character segments with EINVAL", () => {
    expect(() => validatePath(segments(17))).toThrow(expect.objectContaining({ code: "EINVAL", message: expect.stringMatching(/Path depth exceeds limit/) }));
    expect(() => validatePath(`x/${"a".repeat(81)}`)).toThrow(expect.objectContaining({ code: "EINVAL", message: expect.stringMatching(/Path segment exceeds limit/) }));
  });
  it("takes other limits", () => {
    expect(() => validatePath(segments(17), { maxPathDepth: 20, maxSegmentLength: 80 })).not.toThrow();
  });
});

describe("stripMountPoint", () => {
  it.each([
    ["workspace/foo", null, "workspace/foo"],
    ["workspace/foo", "workspace", "foo"],
    ["/workspace/foo", "/workspace", "foo"],
    ["workspace", "workspace", ""],
    ["other/foo", "workspace", "other/foo"],
    ["workspacefoo/bar", "workspace", "workspacefoo/bar"],
    ["workspace/foo", "/workspace/", "foo"],
    ["a/b/c", "a/b", "c"],
    ["a", "a/b", "a"],
  ])("%j with %j → %j", (path, mount, expected) => {
    expect(stripMountPoint(path, mount)).toBe(expected);
  });
});

describe("resolveWorkspacePath (what every backend receives)", () => {
  it("refuses escapes instead of clamping them, and malformed input", () => {
    expect(() => resolveWorkspacePath("../etc/passwd")).toThrow(expect.objectContaining({ code: "EACCES", message: expect.stringMatching(/escapes root/) }));
    expect(() => resolveWorkspacePath("a/../../x")).toThrow(expect.objectContaining({ code: "EACCES" }));
    expect(() => resolveWorkspacePath(42)).toThrow(expect.objectContaining({ code: "EINVAL" }));
    expect(() => resolveWorkspacePath("C:/x")).toThrow(expect.objectContaining({ code: "EINVAL" }));
    expect(() => resolveWorkspacePath("x\u0000y")).toThrow(expect.objectContaining({ code: "EINVAL", message: expect.stringMatching(/NUL/) }));
  });
  it("normalises, strips the mount point and applies creation rules only when creating", () => {
    expect(resolveWorkspacePath("/workspace/src/./a.ts", { mountPoint: "/workspace" })).toBe("src/a.ts");
    expect(resolveWorkspacePath("a/b/../c")).toBe("a/c");
    expect(resolveWorkspacePath(".git/config")).toBe(".git/config");
    expect(() => resolveWorkspacePath(".git/config", { forCreate: true })).toThrow(expect.objectContaining({ code: "EACCES" }));
    expect(resolveWorkspacePath(".git/config", { forCreate: true, allowGitMetadata: true })).toBe(".git/config");
    for (const disguised of [".git./x", ".git /x", ".git. . /x", "GIT~1/x", "git~2/x", "\u200b.git/x", ".git\u200c/x", "\ufeff.GIT/x", ".git::$INDEX_ALLOCATION/x", ".git:stream/x"]) {
      expect(() => resolveWorkspacePath(`sub/${disguised}`, { forCreate: true }), disguised).toThrow(expect.objectContaining({ code: "EACCES", data: expect.objectContaining({ reason: "git-metadata" }) }));
    }
    for (const fine of [".gitignore/x", "a.git/x", ".git-keep/x", "git/x", "git~/x", "xgit~1/x", ".g it/x"]) {
      expect(resolveWorkspacePath(fine, { forCreate: true }), fine).toBe(fine);
    }
    expect(resolveWorkspacePath("a".repeat(100))).toBe("a".repeat(100));
    expect(() => resolveWorkspacePath("a".repeat(100), { forCreate: true, limits: { maxPathDepth: 16, maxSegmentLength: 80 } })).toThrow(/Path segment exceeds/);
  });
});
