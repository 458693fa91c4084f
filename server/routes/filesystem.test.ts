// The workspace routes over real archives (Python zipfile, our writer, WINK's root variant)
// and VirtualFileSystem slices.
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURES, cleanUp, copyFixture, get, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";

afterEach(cleanUp);

const REF = "wink_debug.session:FilesystemSnapshotRef";
const VFS = "weakincentives.contrib.tools.vfs:VirtualFileSystem";

/** Writes a seed-format archive with Python's zipfile (the original writer's library). */
function pythonZip(target: string, files: Record<string, string | number[]>): void {
  const script = `
import json, sys, zipfile
files = json.loads(sys.argv[2])
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    total = 0
    for name, content in files.items():
        data = bytes(content) if isinstance(content, list) else content.encode("utf-8")
        total += len(data)
        z.writestr("files/" + name, data)
    z.writestr("manifest.json", json.dumps({"version": "1", "created_at": "2026-11-22T01:00:00+00:00", "file_count": len(files), "total_bytes": total}))
`;
  execFileSync("python3", ["-c", script, target, JSON.stringify(files)]);
}

function vfsItem(files: Record<string, string>): Record<string, unknown> {
  return {
    files: Object.entries(files).map(([name, content]) => ({
      content,
      created_at: "2026-11-22T01:00:00+00:00",
      encoding: "utf-8",
      path: { segments: name.split("/") },
      size_bytes: Buffer.byteLength(content),
      updated_at: "2026-11-22T01:00:00+00:00",
      version: 1,
    })),
  };
}

describe("archive found next to the session file", () => {
  it("serves WINK's root-metadata archive: meta, sorted tree, files, pagination", async () => {
    const dir = await copyFixture(path.join(FIXTURES, "fszip-pr633"));
    const app = await testApp({ path: path.join(dir, "fszip-pr633") });
    const meta = (await get(app, "/api/filesystem/meta")).json();
    expect(meta).toMatchObject({ has_archive: true, source: "archive", archive: "0f5f356f-9bfe-4e60-8222-b6a717dc8521.fs.zip", file_count: 18, error: null });
    expect(meta.manifest).toMatchObject({ source: "_wink_metadata.json", file_count: 18 });
    const tree = (await get(app, "/api/filesystem/tree")).json();
    expect(tree).toHaveLength(18);
    expect(tree.map((entry: { path: string }) => entry.path)).toEqual([...tree.map((entry: { path: string }) => entry.path)].sort());
    expect(tree).toContainEqual({ path: "notes/empty.txt", size_bytes: 0 });
    expect(tree).toContainEqual({ path: "deep/a/b/c/d/e/leaf.txt", size_bytes: 13 });
    const unicode = (await get(app, "/api/filesystem/file?path=notes/unicode.txt")).json();
    expect(unicode).toMatchObject({ type: "text", encoding: "utf-8", size_bytes: 61 });
    expect(unicode.content).toMatch(/[^\x00-\x7f]/);
    const page = (await get(app, "/api/filesystem/file?path=sunfish/README.md&offset=1&limit=2")).json();
    expect(page.total_lines).toBeGreaterThan(3);
    expect(page.truncated).toBe(true);
    expect(page.content.split("\n")).toHaveLength(3);
    const wildcard = (await get(app, "/api/filesystem/file/sunfish/README.md?limit=1")).json();
    const query = (await get(app, "/api/filesystem/file?path=sunfish/README.md&limit=1")).json();
    expect(wildcard).toEqual(query);
    expect(wildcard.content.endsWith("\n")).toBe(true);
    expect(wildcard.content.split("\n")).toHaveLength(2);
  });

  it("serves a Python zipfile archive named by FilesystemSnapshotRef, and the adjacent one otherwise", async () => {
    const dir = await tempDir();
    pythonZip(path.join(dir, "turn-2.fs.zip"), { "src/main.py": "print('two')\n", "README.md": "# two\n" });
    pythonZip(path.join(dir, "run.fs.zip"), { "src/main.py": "print('adjacent')\n" });
    await writeSession(dir, "run.jsonl", [
      snapshotLine({ sessionId: "s", slices: [{ type: REF, items: [{ archive_path: "/somewhere/else/turn-2.fs.zip", file_count: 2, total_bytes: 19 }] }] }),
      snapshotLine({ sessionId: "s", createdAt: "2026-11-22T02:00:00+00:00" }),
    ]);
    const app = await testApp({ path: dir });
    const first = (await get(app, "/api/filesystem/meta?file=run.jsonl&line=1")).json();
    expect(first).toMatchObject({ archive: "turn-2.fs.zip", file_count: 2 });
    expect((await get(app, "/api/filesystem/file?path=src/main.py&line=1")).json().content).toBe("print('two')\n");
    const second = (await get(app, "/api/filesystem/meta?file=run.jsonl&line=2")).json();
    expect(second).toMatchObject({ archive: "run.fs.zip", file_count: 1 });
    expect((await get(app, "/api/filesystem/file?path=src/main.py&line=2")).json().content).toBe("print('adjacent')\n");
  });

  it("classifies images and binary files, and downloads bytes as an attachment with a sandboxing CSP", async () => {
    const dir = await tempDir();
    const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0];
    pythonZip(path.join(dir, "run.fs.zip"), { "logo.PNG": png, "data.bin": [0, 1, 2, 255], "page.html": "<script>alert(1)</script>" });
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s" })]);
    const app = await testApp({ path: dir });
    const image = (await get(app, "/api/filesystem/file?path=logo.PNG")).json();
    expect(image).toMatchObject({ type: "image", mime_type: "image/png", encoding: "base64" });
    expect(Buffer.from(image.content, "base64")).toEqual(Buffer.from(png));
    expect((await get(app, "/api/filesystem/file?path=data.bin")).json()).toMatchObject({ type: "binary", content: null });
    const html = await get(app, "/api/filesystem/file?path=page.html");
    expect(html.headers["content-type"]).toContain("application/json");
    const download = await get(app, "/api/filesystem/download?path=page.html");
    expect(download.statusCode).toBe(200);
    expect(download.headers["content-type"]).toBe("application/octet-stream");
    expect(download.headers["content-disposition"]).toMatch(/^attachment; filename="page.html"/);
    expect(download.headers["content-security-policy"]).toContain("sandbox");
    expect(download.headers["x-content-type-options"]).toBe("nosniff");
    expect(download.body).toBe("<script>alert(1)</script>");
    expect((await get(app, "/api/filesystem/download/data.bin")).rawPayload).toEqual(Buffer.from([0, 1, 2, 255]));
    expect((await get(app, "/api/filesystem/download?path=nope")).statusCode).toBe(404);
  });

  it("lists an archive before reading its manifest, and reports a refused manifest in meta while serving the files", async () => {
    const dir = await tempDir();
    const script = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("files/a.txt", "alpha\\n")
    z.writestr("files/b/c.txt", "gamma\\n")
    z.writestr("manifest.json", '{"version": "1", "created_at": "x", "file_count": -1, "total_bytes": 12}')
`;
    execFileSync("python3", ["-c", script, path.join(dir, "run.fs.zip")]);
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s" })]);
    const app = await testApp({ path: dir });
    expect((await get(app, "/api/filesystem/tree")).json()).toEqual([
      { path: "a.txt", size_bytes: 6 },
      { path: "b/c.txt", size_bytes: 6 },
    ]);
    expect((await get(app, "/api/filesystem/file?path=b/c.txt")).json().content).toBe("gamma\n");
    const meta = (await get(app, "/api/filesystem/meta")).json();
    expect(meta).toMatchObject({ has_archive: true, source: "archive", archive: "run.fs.zip", manifest: null, file_count: 2, total_bytes: 12 });
    expect(meta.error).toMatch(/^Invalid manifest\.json: file_count must be a non-negative integer/);
  });

  it("reports a corrupt archive instead of failing, and falls back to the VirtualFileSystem slice", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "run.fs.zip"), "this is not a zip file");
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s" }), snapshotLine({ sessionId: "t", slices: [{ type: VFS, items: [vfsItem({ "a.txt": "from the slice\n" })] }] })]);
    const app = await testApp({ path: dir });
    const meta = (await get(app, "/api/filesystem/meta?line=1")).json();
    expect(meta).toMatchObject({ has_archive: false, source: null });
    expect(meta.error).toContain("run.fs.zip");
    expect((await get(app, "/api/filesystem/tree?line=1")).json()).toEqual([]);
    const fallback = (await get(app, "/api/filesystem/meta?line=2")).json();
    expect(fallback).toMatchObject({ has_archive: false, source: "virtual_filesystem", file_count: 1 });
    expect((await get(app, "/api/filesystem/file?line=2&path=a.txt")).json().content).toBe("from the slice\n");
  });
});

describe("VirtualFileSystem slices", () => {
  it("serves the files held in a session line, with change badges against the session's previous line", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [
      snapshotLine({ sessionId: "s", slices: [{ type: VFS, items: [vfsItem({ "src/a.py": "a = 1\n", "src/b.py": "b = 1\n", "old.txt": "bye\n" })] }] }),
      snapshotLine({ sessionId: "s", createdAt: "2026-11-22T02:00:00+00:00", slices: [{ type: VFS, items: [vfsItem({ "src/a.py": "a = 2\n", "src/b.py": "b = 1\n", "src/new.py": "n\n" })] }] }),
    ]);
    const app = await testApp({ path: dir });
    const tree = (await get(app, "/api/filesystem/tree?line=2")).json();
    expect(tree).toEqual([
      { path: "src/a.py", size_bytes: 6 },
      { path: "src/b.py", size_bytes: 6 },
      { path: "src/new.py", size_bytes: 2 },
    ]);
    const browse = (await get(app, "/api/filesystem/browse?line=2")).json();
    expect(browse.base).toEqual({ file: "run.jsonl", line_number: 1 });
    const [src, old] = browse.root.children;
    expect(src).toMatchObject({ name: "src", type: "directory", changed_count: 2 });
    expect(old).toMatchObject({ name: "old.txt", change: "deleted" });
    expect(src.children.map((node: { name: string; change: string | null }) => [node.name, node.change])).toEqual([
      ["a.py", "modified"],
      ["b.py", null],
      ["new.py", "added"],
    ]);
    const plain = (await get(app, "/api/filesystem/browse?line=2&compare=none")).json();
    expect(plain.base).toBeNull();
    expect(plain.root.changed_count).toBe(0);
  });

  it("serves the fixture session tree's VirtualFileSystem", async () => {
    const dir = await copyFixture(path.join(FIXTURES, "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"));
    const app = await testApp({ path: dir });
    const meta = (await get(app, "/api/filesystem/meta")).json();
    expect(meta).toMatchObject({ source: "virtual_filesystem", file_count: 14 });
    const readme = (await get(app, "/api/filesystem/file?path=sunfish/README.md")).json();
    expect(readme.type).toBe("text");
    expect(readme.content.length).toBeGreaterThan(1000);
  });
});

describe("paths from requests", () => {
  it("refuses traversal and malformed paths with 400, and treats double-encoded names literally", async () => {
    const dir = await copyFixture(path.join(FIXTURES, "fszip-pr633"));
    const app = await testApp({ path: path.join(dir, "fszip-pr633") });
    for (const bad of ["..%2F..%2F..%2Fetc%2Fpasswd", "notes%2F..%2F..%2Fx", "a%00b", "..", "C:%5Cwindows", "a%5C..%5Cb"]) {
      const response = await get(app, `/api/filesystem/file?path=${bad}`);
      expect(response.statusCode, bad).toBe(400);
      expect(response.json().detail).toBeTypeOf("string");
    }
    expect((await get(app, "/api/filesystem/file?path=%252e%252e%252fetc%252fpasswd")).statusCode).toBe(404);
    expect((await get(app, "/api/filesystem/file?path=a&path=../../etc/passwd")).statusCode).toBe(400);
    expect((await get(app, "/api/filesystem/file/..%2F..%2Fetc%2Fpasswd")).statusCode).toBe(400);
  });
});
