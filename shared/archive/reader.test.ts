import { randomBytes } from "node:crypto";
import { readFile, readdir, writeFile } from "node:fs/promises";
import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { ArchiveError, FileNotFoundError, InvalidArgumentError, IsADirectoryError } from "../errors.js";
import { execFileAsync, memorySource, python } from "./archive.test-support.js";
import { useTempDir } from "./temp-dir.test-support.js";
import { WHOLE_ARCHIVE_MAX_BYTES, openArchive, type ArchiveReader } from "./reader.node.js";
import { writeArchive } from "./writer.node.js";
import { FIXTURES_DIR, securityFixture, winkFixture } from "../../fixtures/paths.js";

const FIXTURE = winkFixture("fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.fs.zip");
const ZIPS = securityFixture("zips");

const tempDir = useTempDir();

async function withReader<T>(path: string, use: (reader: ArchiveReader) => Promise<T>, options?: Parameters<typeof openArchive>[1]): Promise<T> {
  const reader = await openArchive(path, options);
  try {
    return await use(reader);
  } finally {
    await reader.close();
  }
}

/** name → [hex content, crc32] as Python's zipfile reads them. */
async function pythonEntries(path: string): Promise<Map<string, [string, number]>> {
  const out = await python("import sys,zipfile,json\nz=zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({i.filename: [z.read(i).hex(), i.CRC] for i in z.infolist() if not i.is_dir()}))", [path]);
  return new Map(Object.entries(JSON.parse(out) as Record<string, [string, number]>));
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("openArchive: the WINK root-metadata variant (fszip-pr633)", () => {
  it("lists 18 files with _wink_metadata.json as manifest, and reads each as Python does", async () => {
    await withReader(FIXTURE, async (reader) => {
      expect(reader.variant).toBe("root-metadata");
      expect(reader.manifest).toMatchObject({ source: "_wink_metadata.json", sessionId: "0f5f356f-9bfe-4e60-8222-b6a717dc8521", rootPath: "/", fileCount: 18, totalBytes: 177839 });
      expect(reader.warnings).toEqual([]);
      expect(reader.files.length).toBe(18);
      expect(reader.getFile("deep/a/b/c/d/e/leaf.txt")).toBeDefined();
      expect(reader.getFile("_wink_metadata.json")).toBeUndefined();
      const expected = await pythonEntries(FIXTURE);
      for (const file of reader.files) {
        const [hex, crc] = expected.get(file.entryName) as [string, number];
        expect(Buffer.from(await reader.readFile(file.path)).toString("hex")).toBe(hex);
        expect(file.crc32).toBe(crc);
      }
      expect((await reader.readFile("notes/empty.txt")).length).toBe(0);
      expect(new TextDecoder().decode(await reader.readFile("notes/unicode.txt"))).toContain("日本語");
    });
  });
});

describe("openArchive: _wink_metadata.json decides the layout (issue 18, item 2)", () => {
  it("opens WINK's PR layout whose workspace has its own top-level manifest.json, which stays a workspace file", async () => {
    const path = nodePath.join(FIXTURES_DIR, "security-extra", "zips", "94-wink-pr-layout-own-manifest.zip");
    await withReader(path, async (reader) => {
      expect(reader.variant).toBe("root-metadata");
      expect(reader.manifest).toMatchObject({ source: "_wink_metadata.json", sessionId: "s-1", fileCount: 3 });
      expect(reader.warnings).toEqual([]);
      expect(reader.files.map((file) => file.path).sort()).toEqual(["background.js", "icons/icon.png", "manifest.json"]);
      expect(JSON.parse(new TextDecoder().decode(await reader.readFile("manifest.json")))).toMatchObject({ manifest_version: 3 });
    });
  });

  it("still reads manifest.json + files/ as the files layout when there is no _wink_metadata.json", async () => {
    const path = nodePath.join(tempDir(), "ours.fs.zip");
    await writeArchive(path, memorySource([{ path: "manifest.json", content: "{}" }]));
    await withReader(path, async (reader) => {
      expect(reader.variant).toBe("files");
      expect(reader.files.map((file) => file.path)).toEqual(["manifest.json"]);
      expect(reader.manifest?.source).toBe("manifest.json");
    });
  });
});

describe("openArchive: manifests and warnings", () => {
  it("opens an archive without a manifest with a warning, and refuses it when a manifest is required", async () => {
    const path = nodePath.join(ZIPS, "60-manifest-missing.zip");
    await withReader(path, async (reader) => {
      expect(reader.variant).toBe("files");
      expect(reader.manifest).toBeNull();
      expect(reader.warnings).toEqual(["Archive has no manifest.json"]);
      expect(reader.files.map((f) => f.path)).toEqual(["ok.txt"]);
    });
    const error = await caught(openArchive(path, { requireManifest: true }));
    expect(error).toMatchObject({ code: "E_ARCHIVE_MANIFEST", data: { entry: "manifest.json", archive: path } });
  });

  it("warns when the manifest's counts disagree with the archive", async () => {
    await withReader(nodePath.join(ZIPS, "55-many-entries.zip"), async (reader) => {
      expect(reader.warnings).toContain("manifest.json says 1 files, the archive holds 12001");
      expect(reader.directories).toEqual(["emptydir"]);
    });
  });

  it("ignores entries outside files/ in the files variant, with a warning", async () => {
    const path = nodePath.join(tempDir(), "stray.zip");
    await python(
      `import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("manifest.json", '{"version":"1","created_at":"x","file_count":1,"total_bytes":1}')
    z.writestr("files/a", "a")
    z.writestr("README", "stray")`,
      [path],
    );
    await withReader(path, async (reader) => {
      expect(reader.files.map((f) => f.path)).toEqual(["a"]);
      expect(reader.warnings).toEqual(["Ignored 1 entry outside files/: README"]);
    });
  });
});

describe("openArchive with deferManifest", () => {
  it("lists and reads files without reading the manifest, then checks it on demand as an eager open does", async () => {
    const path = nodePath.join(ZIPS, "55-many-entries.zip");
    const eager = await withReader(path, async (reader) => ({ manifest: reader.manifest, warnings: reader.warnings, directories: reader.directories, files: reader.files }));
    await withReader(
      path,
      async (reader) => {
        expect(() => reader.manifest).toThrow(InvalidArgumentError);
        expect(() => reader.warnings).toThrow(/readManifest/);
        expect(() => reader.directories).toThrow(InvalidArgumentError);
        expect(reader.fileCount).toBe(12001);
        expect(reader.files).toEqual(eager.files);
        const visited: [string, number, number][] = [];
        reader.forEachFile((file, size, crc32) => visited.push([file, size, crc32]));
        expect(visited).toEqual(eager.files.map((f) => [f.path, f.size, f.crc32]));
        expect(await reader.readManifest()).toEqual({ manifest: eager.manifest, warnings: eager.warnings, directories: eager.directories });
        expect(() => reader.manifest).toThrow(InvalidArgumentError); // read, checked, not kept
      },
      { deferManifest: true },
    );
  });

  it("opens an archive with an invalid manifest, lists it, and refuses the manifest when asked (import still refuses at open)", async () => {
    for (const name of ["61-manifest-invalid-json.zip", "64-manifest-huge-numbers.zip"]) {
      const path = nodePath.join(ZIPS, name);
      expect(await caught(openArchive(path))).toMatchObject({ code: "E_ARCHIVE_MANIFEST", data: { archive: path } });
      expect(await caught(openArchive(path, { deferManifest: true, requireManifest: true }))).toMatchObject({ code: "E_ARCHIVE_MANIFEST" });
      await withReader(
        path,
        async (reader) => {
          expect(reader.fileCount).toBeGreaterThan(0);
          expect(await caught(reader.readManifest())).toMatchObject({ code: "E_ARCHIVE_MANIFEST", data: { entry: "manifest.json", archive: path } });
          const first = reader.files[0] as { path: string };
          expect((await reader.readFile(first.path)).length).toBe(reader.getFile(first.path)?.size);
        },
        { deferManifest: true },
      );
    }
  });

  it("refuses manifest directories that clash with files when the manifest is read", async () => {
    const path = nodePath.join(tempDir(), "clash.zip");
    await python(
      `import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("manifest.json", '{"version":"1","created_at":"x","file_count":1,"total_bytes":1,"directories":["a/b"]}')
    z.writestr("files/a", "a")`,
      [path],
    );
    expect(await caught(openArchive(path))).toMatchObject({ code: "E_ARCHIVE_MANIFEST", data: { field: "directories", conflictsWith: "files/a" } });
    await withReader(
      path,
      async (reader) => {
        expect(new TextDecoder().decode(await reader.readFile("a"))).toBe("a");
        expect(await caught(reader.readManifest())).toMatchObject({ code: "E_ARCHIVE_MANIFEST", data: { field: "directories", archive: path } });
      },
      { deferManifest: true },
    );
  });
});

describe("ArchiveReader.readFile", () => {
  it("refuses missing files, directories, oversized entries and a closed reader", async () => {
    const path = nodePath.join(tempDir(), "a.fs.zip");
    await writeArchive(path, memorySource([{ path: "big.txt", content: "x".repeat(5000) }, { path: "empty", content: null }]));
    const reader = await openArchive(path);
    expect(await caught(reader.readFile("nope"))).toBeInstanceOf(FileNotFoundError);
    expect(await caught(reader.readFile("empty"))).toBeInstanceOf(IsADirectoryError);
    expect(await caught(reader.readFile("big.txt", { maxBytes: 4999 }))).toMatchObject({ code: "E_ARCHIVE_LIMIT", data: { entry: "files/big.txt" } });
    expect((await reader.readFile("big.txt", { maxBytes: 5000 })).length).toBe(5000);
    await reader.close();
    await reader.close();
    expect(await caught(reader.readFile("big.txt"))).toBeInstanceOf(InvalidArgumentError);
  });

  it("checks the local header, the CRC and the declared size on every read", async () => {
    await withReader(nodePath.join(ZIPS, "42-cd-local-mismatch.zip"), async (reader) => {
      expect(await caught(reader.readFile("harmless.txt"))).toMatchObject({ code: "E_ARCHIVE_CORRUPT", data: { entry: "files/harmless.txt", reason: "local-header-mismatch" } });
      expect(new TextDecoder().decode(await reader.readFile("ok.txt"))).toBe("ok\n");
    });
    await withReader(nodePath.join(ZIPS, "45-bad-crc-late-entry.zip"), async (reader) => {
      expect(await caught(reader.readFile("data.bin"))).toMatchObject({ code: "E_ARCHIVE_CHECKSUM", data: { entry: "files/data.bin", reason: "crc" } });
    });
    await withReader(nodePath.join(ZIPS, "51-bomb-lying-size.zip"), async (reader) => {
      expect(await caught(reader.readFile("small.txt"))).toMatchObject({ code: "E_ARCHIVE_CHECKSUM", data: { entry: "files/small.txt", reason: "size" } });
    });
  });

  it("throws ENOENT for a missing archive", async () => {
    expect(await caught(openArchive(nodePath.join(tempDir(), "missing.zip")))).toBeInstanceOf(FileNotFoundError);
  });

  it("reports modes and modification times from the central directory", async () => {
    const path = nodePath.join(tempDir(), "m.fs.zip");
    await writeArchive(path, memorySource([{ path: "run.sh", content: "#!/bin/sh\n", mode: 0o755 }]));
    await withReader(path, async (reader) => {
      expect(reader.getFile("run.sh")).toMatchObject({ mode: 0o755, mtimeMs: Date.UTC(2024, 0, 15, 10, 30, 0), size: 10, entryName: "files/run.sh" });
    });
  });
});

describe("openArchive: other writers", () => {
  it("reads Info-ZIP archives (UTF-8 names without the flag; ZIP64 forced with -fz)", async () => {
    const tree = nodePath.join(tempDir(), "tree");
    await python(
      `import os, sys
root = sys.argv[1]
os.makedirs(os.path.join(root, "files", "dir"))
open(os.path.join(root, "files", "dir", "café.txt"), "w").write("hi\\n")
open(os.path.join(root, "files", "run.sh"), "w").write("#!/bin/sh\\n")
os.chmod(os.path.join(root, "files", "run.sh"), 0o755)
open(os.path.join(root, "manifest.json"), "w").write('{"version":"1","created_at":"x","file_count":2,"total_bytes":13}')`,
      [tree],
    );
    for (const flags of [["-qr"], ["-qr", "-fz"]]) {
      const path = nodePath.join(tempDir(), `infozip${flags.length}.zip`);
      await execFileAsync("zip", [...flags, path, "."], { cwd: tree });
      await withReader(path, async (reader) => {
        expect(reader.files.map((f) => f.path).sort()).toEqual(["dir/café.txt", "run.sh"]);
        expect(reader.getFile("run.sh")?.mode).toBe(0o755);
        expect(new TextDecoder().decode(await reader.readFile("dir/café.txt"))).toBe("hi\n");
        expect(reader.warnings).toEqual([]);
      });
    }
  });

  it("reads entries written with data descriptors (Python writing to a pipe)", async () => {
    const path = nodePath.join(tempDir(), "piped.zip");
    await execFileAsync("sh", [
      "-c",
      `python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.stdout.buffer, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("manifest.json", "{\\"version\\":\\"1\\",\\"created_at\\":\\"x\\",\\"file_count\\":1,\\"total_bytes\\":5}")
    z.writestr("files/a.txt", "hello")' | cat > "$1"`,
      "sh",
      path,
    ]);
    const flags = await python("import sys,zipfile\nprint([i.flag_bits & 8 for i in zipfile.ZipFile(sys.argv[1]).infolist()])", [path]);
    expect(flags.trim()).toBe("[8, 8]");
    await withReader(path, async (reader) => {
      expect(new TextDecoder().decode(await reader.readFile("a.txt"))).toBe("hello");
    });
  });
});

describe("openArchive: end records are never trusted", () => {
  async function withPatchedCount(delta: number): Promise<unknown> {
    const path = nodePath.join(tempDir(), `count${delta}.zip`);
    await writeArchive(path, memorySource([{ path: "a", content: "a" }, { path: "b", content: "b" }]));
    const bytes = await readFile(path);
    const eocd = bytes.length - 22;
    const count = bytes.readUInt16LE(eocd + 10) + delta;
    bytes.writeUInt16LE(count, eocd + 8);
    bytes.writeUInt16LE(count, eocd + 10);
    await writeFile(path, bytes);
    return caught(openArchive(path));
  }

  it("refuses an end record that declares fewer or more entries than the directory holds", async () => {
    expect(await withPatchedCount(-1)).toMatchObject({ code: "E_ARCHIVE_CORRUPT", message: expect.stringContaining("more records than") });
    expect(await withPatchedCount(+1)).toMatchObject({ code: "E_ARCHIVE_CORRUPT", message: expect.stringContaining("declares 4 entries") });
  });

  it("names the archive in archive-level errors", async () => {
    const path = nodePath.join(ZIPS, "46-truncated.zip");
    const error = await caught(openArchive(path));
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).data.archive).toBe(path);
  });
});

describe("openArchive: small archives read whole", () => {
  const descriptors = async () => (await readdir("/proc/self/fd")).length;

  it("reads an archive of at most WHOLE_ARCHIVE_MAX_BYTES once at open, keeps no descriptor, and reads its members from memory", async () => {
    const size = (await readFile(FIXTURE)).length;
    expect(size).toBeLessThanOrEqual(WHOLE_ARCHIVE_MAX_BYTES);
    const open = await descriptors();
    await withReader(FIXTURE, async (reader) => {
      expect(reader.heldBytes).toBe(size);
      expect(await descriptors()).toBe(open);
      // (Every member read as Python reads it: the first test above, on this archive.)
      expect(new TextDecoder().decode(await reader.readFile("notes/unicode.txt"))).toContain("日本語");
      expect(await descriptors()).toBe(open);
    });
  });

  it("keeps a larger archive open and reads its members from the file", async () => {
    const big = nodePath.join(tempDir(), "big.fs.zip");
    // Incompressible, so that the archive is larger than what is read whole.
    const noise = randomBytes(WHOLE_ARCHIVE_MAX_BYTES + 1024);
    await writeArchive(big, memorySource([{ path: "noise.bin", content: noise }]));
    const open = await descriptors();
    await withReader(big, async (reader) => {
      expect(reader.heldBytes).toBe(0);
      expect(await descriptors()).toBe(open + 1);
      expect(Buffer.from(await reader.readFile("noise.bin")).equals(noise)).toBe(true);
    });
  });
});
