import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { ArchiveError, InvalidArgumentError } from "../errors.js";
import { RecordingTransaction, execFileAsync, memorySource, python } from "./archive.test-support.js";
import { useTempDir } from "./temp-dir.test-support.js";
import { extractArchive } from "./extract.node.js";
import { openArchive } from "./reader.node.js";
import { writeArchive, type ArchiveSourceEntry } from "./writer.node.js";

const tempDir = useTempDir();

const sha256 = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

/** Everything Python's zipfile sees in an archive: names, bytes (hex), modes, flags, manifest. */
interface PythonView {
  entries: { name: string; hex: string; mode: number; is_dir: boolean; compress_type: number }[];
  manifest: Record<string, unknown>;
  created_at_parsed: string;
}

async function pythonView(archive: string): Promise<PythonView> {
  const script = `
import sys, zipfile, json, datetime
z = zipfile.ZipFile(sys.argv[1])
entries = [{"name": i.filename, "hex": z.read(i).hex(), "mode": i.external_attr >> 16, "is_dir": i.is_dir(), "compress_type": i.compress_type} for i in z.infolist()]
manifest = json.loads(z.read("manifest.json"))
print(json.dumps({"entries": entries, "manifest": manifest, "created_at_parsed": datetime.datetime.fromisoformat(manifest["created_at"]).isoformat()}))
`;
  return JSON.parse(await python(script, [archive])) as PythonView;
}

async function unzipTest(archive: string): Promise<string> {
  const { stdout } = await execFileAsync("unzip", ["-t", archive], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
const incompressible = randomBytes(64 * 1024);
const photo = randomBytes(300 * 1024); // buffered, sniffed as incompressible
const video = randomBytes(2560 * 1024); // streamed, sniffed as incompressible
// ~3 MiB of numbered lines: big enough to be streamed, compressible like real text (a
// repeated constant line would exceed the import's 200:1 ratio limit).
const large = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `line ${i * 7919} of a larger file\n`).join(""));

const SAMPLE = [
  { path: "README.md", content: "# Project\n" },
  { path: "src", content: null },
  { path: "src/main.ts", content: "export const answer = 42;\n".repeat(100) },
  { path: "bin", content: null },
  { path: "bin/run.sh", content: "#!/bin/sh\necho hi\n", mode: 0o755 },
  { path: "empty.txt", content: "" },
  { path: "data.bin", content: binary },
  { path: "random.bin", content: incompressible },
  { path: "media", content: null },
  { path: "media/photo.jpg", content: photo },
  { path: "media/video.bin", content: video },
  { path: "large.txt", content: large },
  { path: "unicode", content: null },
  { path: "unicode/café 日本語 🚀.txt", content: "ünïcödé\n" },
  { path: "-rf", content: "option-like name\n" },
  { path: "empty-dir", content: null },
  { path: "nested", content: null },
  { path: "nested/deeper", content: null },
  { path: "nested/deeper/leaf-dir", content: null },
] as const;

describe("writeArchive", () => {
  it("writes an archive that unzip -t and Python's zipfile read with identical names, bytes and modes", async () => {
    const archive = nodePath.join(tempDir(), "out", "snap.fs.zip");
    const summary = await writeArchive(archive, memorySource(SAMPLE), { manifestExtra: { session_id: "abc" }, createdAt: "2024-01-15T10:30:00.123456+00:00" });
    expect(summary).toEqual({ archivePath: archive, fileCount: 11, totalBytes: expect.any(Number), directoryCount: 2, skipped: [] });

    expect(await unzipTest(archive)).toContain("No errors detected");
    const view = await pythonView(archive);
    const files = SAMPLE.filter((e) => e.content !== null);
    const expectedNames = [...files.map((e) => `files/${e.path}`), "files/empty-dir/", "files/nested/deeper/leaf-dir/", "manifest.json"];
    expect(view.entries.map((e) => e.name).sort()).toEqual(expectedNames.sort());
    for (const file of files) {
      const entry = view.entries.find((e) => e.name === `files/${file.path}`);
      const bytes = typeof file.content === "string" ? Buffer.from(file.content) : Buffer.from(file.content);
      expect(entry?.hex).toBe(bytes.toString("hex"));
      expect(entry?.mode).toBe(0o100000 | ("mode" in file ? file.mode : 0o644));
    }
    expect(view.entries.find((e) => e.name === "files/empty-dir/")).toMatchObject({ is_dir: true, mode: 0o40755 });
    expect(view.entries.find((e) => e.name === "files/random.bin")?.compress_type).toBe(0); // stored: deflate would grow it
    expect(view.entries.find((e) => e.name === "files/media/photo.jpg")?.compress_type).toBe(0); // stored: sniffed
    expect(view.entries.find((e) => e.name === "files/media/video.bin")?.compress_type).toBe(0); // stored: sniffed while streaming
    expect(view.entries.find((e) => e.name === "files/large.txt")?.compress_type).toBe(8);
    expect(view.entries.find((e) => e.name === "files/src/main.ts")?.compress_type).toBe(8);

    const manifest = view.manifest;
    expect(manifest).toMatchObject({ version: "1", created_at: "2024-01-15T10:30:00.123456+00:00", file_count: 11, session_id: "abc", directories: ["empty-dir", "nested/deeper/leaf-dir"] });
    expect(view.created_at_parsed).toBe("2024-01-15T10:30:00.123456+00:00");
    const totalBytes = files.reduce((sum, f) => sum + (typeof f.content === "string" ? Buffer.byteLength(f.content) : f.content.length), 0);
    expect(manifest.total_bytes).toBe(totalBytes);
    expect(summary.totalBytes).toBe(totalBytes);
    const listed = manifest.files as { path: string; size_bytes: number; sha256: string }[];
    expect(listed.map((f) => f.path)).toEqual(files.map((f) => f.path).sort());
    for (const file of files) {
      const bytes = typeof file.content === "string" ? Buffer.from(file.content) : Buffer.from(file.content);
      expect(listed.find((f) => f.path === file.path)).toEqual({ path: file.path, size_bytes: bytes.length, sha256: sha256(bytes) });
    }
  });

  it("writes created_at the way Python's isoformat does by default", async () => {
    const archive = nodePath.join(tempDir(), "a.fs.zip");
    await writeArchive(archive, memorySource([{ path: "a", content: "a" }]));
    const view = await pythonView(archive);
    expect(view.manifest.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
    expect(view.created_at_parsed).toBe(view.manifest.created_at);
  });

  it("round-trips through extractArchive with modes and empty directories", async () => {
    const archive = nodePath.join(tempDir(), "rt.fs.zip");
    await writeArchive(archive, memorySource(SAMPLE));
    const tx = new RecordingTransaction();
    const summary = await extractArchive(archive, tx);
    expect(summary.fileCount).toBe(11);
    expect(summary.directoryCount).toBe(2);
    expect(Buffer.from(tx.files().get("media/video.bin")?.data ?? []).equals(video)).toBe(true);
    expect(Buffer.from(tx.files().get("large.txt")?.data ?? []).equals(large)).toBe(true);
    expect(tx.files().get("bin/run.sh")?.mode).toBe(0o755);
    expect(tx.nodes.get("nested/deeper/leaf-dir")?.kind).toBe("directory");
    expect(tx.nodes.has("nested/deeper")).toBe(false); // implied by leaf-dir, not created separately
  });

  it("writes ZIP64 correctly past 65,535 entries (70,000 files as Python and unzip see them)", async () => {
    const archive = nodePath.join(tempDir(), "many.fs.zip");
    const count = 70_000;
    async function* source(): AsyncGenerator<ArchiveSourceEntry> {
      for (let i = 0; i < count; i++) {
        const content = Buffer.from(`file ${i}\n`);
        yield { path: `d${i % 100}/f${i}.txt`, kind: "file", size: content.length, mode: 0o644, mtimeMs: 0, chunks: async function* () { yield content; } };
      }
    }
    const summary = await writeArchive(archive, source());
    expect(summary.fileCount).toBe(count);
    const out = await python(
      `import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
bad = z.testzip()
print(len(names), len(set(names)), names[0], names[-2], z.read("files/d99/f69999.txt").decode().strip(), bad)`,
      [archive],
    );
    expect(out.trim()).toBe(`${count + 1} ${count + 1} files/d0/f0.txt files/d99/f69999.txt file 69999 None`);
    expect(await unzipTest(archive)).toContain("No errors detected");
    const reader = await openArchive(archive);
    try {
      expect(reader.files.length).toBe(count);
    } finally {
      await reader.close();
    }
  }, 120_000);

  it("can write ZIP64 fields on every record, and the result still reads everywhere", async () => {
    const archive = nodePath.join(tempDir(), "z64.fs.zip");
    await writeArchive(archive, memorySource(SAMPLE), { forceZip64: true });
    expect(await unzipTest(archive)).toContain("No errors detected");
    const view = await pythonView(archive);
    expect(view.entries.find((e) => e.name === "files/large.txt")?.hex).toBe(large.toString("hex"));
    const tx = new RecordingTransaction();
    await extractArchive(archive, tx);
    expect(tx.files().size).toBe(11);
  });

  it("streams big files: memory stays bounded while 100 MiB go through deflate", async () => {
    const archive = nodePath.join(tempDir(), "big.fs.zip");
    // Text-like blocks (deflate's 32 KiB window cannot see the repetition 1 MiB apart).
    const block = Buffer.from(Array.from({ length: 160_000 }, (_, i) => `${(i * 2654435761) % 1_000_003} `).join("")).subarray(0, 1024 * 1024);
    const blocks = 100;
    const entry: ArchiveSourceEntry = {
      path: "big.bin",
      kind: "file",
      size: blocks * block.length,
      mode: 0o644,
      mtimeMs: null,
      async *chunks() {
        for (let i = 0; i < blocks; i++) yield block;
      },
    };
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      await writeArchive(archive, [entry], { compressionLevel: 1 });
      expect(block.length).toBe(1024 * 1024);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    const out = await python("import sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\ni=z.getinfo('files/big.bin')\nprint(i.file_size, i.compress_type, z.testzip())", [archive]);
    expect(out.trim()).toBe(`${blocks * block.length} 8 None`);
  }, 60_000);

  it("never leaves a partial archive: a failing source removes the temporary file and keeps the old archive", async () => {
    const archive = nodePath.join(tempDir(), "keep.fs.zip");
    await writeFile(archive, "previous archive");
    async function* failing(): AsyncGenerator<ArchiveSourceEntry> {
      yield* memorySource([{ path: "a.txt", content: "a" }]);
      yield {
        path: "b.txt",
        kind: "file",
        size: 10,
        mode: 0o644,
        mtimeMs: null,
        async *chunks() {
          yield Buffer.from("12345");
          throw new Error("disk vanished");
        },
      };
    }
    await expect(writeArchive(archive, failing())).rejects.toThrow("disk vanished");
    expect(await readFile(archive, "utf8")).toBe("previous archive");
    expect(await readdir(tempDir())).toEqual(["keep.fs.zip"]);
  });

  it("skips symlinks, special files and names the reader would refuse, and reports them", async () => {
    const archive = nodePath.join(tempDir(), "skip.fs.zip");
    const entries: ArchiveSourceEntry[] = [
      ...memorySource([{ path: "ok.txt", content: "ok" }, { path: "bad\nname.txt", content: "x" }]),
      { path: "link", kind: "symlink", size: 0, mode: 0o777, mtimeMs: null, chunks: async function* () {} },
      { path: "fifo", kind: "other", size: 0, mode: 0o644, mtimeMs: null, chunks: async function* () {} },
    ];
    const summary = await writeArchive(archive, entries);
    expect(summary.fileCount).toBe(1);
    expect(summary.skipped.map((s) => s.path)).toEqual(["bad\nname.txt", "link", "fifo"]);
    expect(summary.skipped[0]?.reason).toContain("control character");
    expect(summary.skipped[1]?.reason).toBe("symbolic link");
    const deep = `${"d/".repeat(63)}f`; // 64 segments: with files/ the entry name would have 65
    const edge = await writeArchive(nodePath.join(tempDir(), "deep.fs.zip"), memorySource([{ path: deep, content: "x" }, { path: `${"d/".repeat(62)}f`, content: "y" }]));
    expect(edge.skipped.map((s) => s.path)).toEqual([deep]);
    expect(edge.fileCount).toBe(1);
    const reader = await openArchive(archive);
    expect(reader.files.map((f) => f.path)).toEqual(["ok.txt"]);
    await reader.close();
  });

  it("refuses a source that yields a path twice or as both file and directory", async () => {
    await expect(writeArchive(nodePath.join(tempDir(), "d1.zip"), memorySource([{ path: "a", content: "1" }, { path: "a", content: "2" }]))).rejects.toBeInstanceOf(ArchiveError);
    await expect(writeArchive(nodePath.join(tempDir(), "d2.zip"), memorySource([{ path: "a", content: null }, { path: "a", content: "2" }]))).rejects.toThrow(/both as a file and as a directory/);
    await expect(writeArchive(nodePath.join(tempDir(), "d3.zip"), memorySource([{ path: "a", content: "1" }, { path: "a/b", content: "2" }]))).rejects.toThrow(/both as a file and as a directory/);
    expect(await readdir(tempDir())).toEqual([]);
  });

  it("reports progress after each file and refuses bad options", async () => {
    const progress: { files: number; bytes: number }[] = [];
    await writeArchive(nodePath.join(tempDir(), "p.zip"), memorySource([{ path: "a", content: "12" }, { path: "b", content: "345" }]), { onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([{ files: 1, bytes: 2 }, { files: 2, bytes: 5 }]);
    await expect(writeArchive(nodePath.join(tempDir(), "q.zip"), [], { compressionLevel: 12 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(writeArchive(nodePath.join(tempDir(), "r.zip"), [], { manifestExtra: { file_count: 3 } })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it("stores everything at compression level 0", async () => {
    const archive = nodePath.join(tempDir(), "stored.zip");
    await writeArchive(archive, memorySource(SAMPLE), { compressionLevel: 0 });
    const view = await pythonView(archive);
    expect(view.entries.filter((e) => e.name.startsWith("files/")).every((e) => e.compress_type === 0)).toBe(true);
    expect(await unzipTest(archive)).toContain("No errors detected");
  });
});
