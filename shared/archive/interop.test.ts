/**
 * Interop with the seed: the reference export/import code of
 * shared/spec/vfs-tool-operations.md ("ZIP Archive Format", HostBackend/InMemoryBackend)
 * run in python3, against our writer and importer; and Info-ZIP unzip extracting our
 * archives.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile, chmod, stat } from "node:fs/promises";
import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { DirectoryTransaction, RecordingTransaction, execFileAsync, python, walkDirectory } from "./archive.test-support.js";
import { useTempDir } from "./temp-dir.test-support.js";
import { extractArchive } from "./extract.node.js";
import { writeArchive } from "./writer.node.js";

/** The seed's reference code, as written in the spec (HostBackend and InMemoryBackend). */
const REFERENCE = `
import json, shutil, sys, zipfile
from datetime import datetime, UTC
from pathlib import Path

def host_export_archive(root: Path, path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    file_count, total_bytes = 0, 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for fpath in root.rglob("*"):
            if fpath.is_file():
                rel = fpath.relative_to(root)
                content = fpath.read_bytes()
                zf.writestr(f"files/{rel}", content)
                file_count += 1
                total_bytes += len(content)
        manifest = {
            "version": "1",
            "created_at": datetime.now(UTC).isoformat(),
            "file_count": file_count,
            "total_bytes": total_bytes,
        }
        zf.writestr("manifest.json", json.dumps(manifest, indent=2))
    return file_count

def host_import_archive(root: Path, path: Path) -> int:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True, exist_ok=True)
    count = 0
    with zipfile.ZipFile(path, "r") as zf:
        for name in zf.namelist():
            if name.startswith("files/") and not name.endswith("/"):
                target = root / name[6:]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(name))
                count += 1
    return count

def memory_export_archive(files: dict, path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    total_bytes = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for fpath, content in sorted(files.items()):
            data = content.encode()
            zf.writestr(f"files/{fpath}", data)
            total_bytes += len(data)
        manifest = {
            "version": "1",
            "created_at": datetime.now(UTC).isoformat(),
            "file_count": len(files),
            "total_bytes": total_bytes,
        }
        zf.writestr("manifest.json", json.dumps(manifest, indent=2))
    return len(files)

op = sys.argv[1]
if op == "host-export": print(host_export_archive(Path(sys.argv[2]), Path(sys.argv[3])))
elif op == "host-import": print(host_import_archive(Path(sys.argv[2]), Path(sys.argv[3])))
elif op == "memory-export": print(memory_export_archive(json.loads(sys.argv[2]), Path(sys.argv[3])))
`;

const tempDir = useTempDir();

/** A small workspace with text, binary, unicode and nested files, an empty file and an empty directory. */
async function makeTree(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>([
    ["README.md", Buffer.from("# Project\n")],
    ["src/main.py", Buffer.from("print('hello')\n")],
    ["src/pkg/deep/module.py", Buffer.from("x = 1\n".repeat(500))],
    ["data.bin", Buffer.from(Array.from({ length: 1024 }, (_, i) => (i * 37) % 256))],
    ["unicode/naïve 日本.txt", Buffer.from("ünïcödé\n")],
    ["empty.txt", Buffer.alloc(0)],
    ["bin/run.sh", Buffer.from("#!/bin/sh\necho hi\n")],
  ]);
  for (const [path, content] of files) {
    await mkdir(nodePath.dirname(nodePath.join(root, path)), { recursive: true });
    await writeFile(nodePath.join(root, path), content);
  }
  await chmod(nodePath.join(root, "bin/run.sh"), 0o755);
  await mkdir(nodePath.join(root, "empty-dir"), { recursive: true });
  return files;
}

/** Every file below root: relative path → content. */
async function readTree(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for await (const entry of walkDirectory(root)) if (entry.kind === "file") out.set(entry.path, await readFile(nodePath.join(root, entry.path)));
  return out;
}

describe("interop with the seed's reference code", () => {
  it("imports an archive written by the reference HostBackend.export_archive", async () => {
    const tree = nodePath.join(tempDir(), "tree");
    const files = await makeTree(tree);
    const archive = nodePath.join(tempDir(), "ref.fs.zip");
    expect((await python(REFERENCE, ["host-export", tree, archive])).trim()).toBe(String(files.size));
    const tx = new RecordingTransaction();
    const summary = await extractArchive(archive, tx);
    expect(summary.fileCount).toBe(files.size);
    expect([...tx.files().keys()].sort()).toEqual([...files.keys()].sort());
    for (const [path, content] of files) expect(Buffer.from(tx.files().get(path)?.data ?? []).equals(content), path).toBe(true);
  });

  it("imports an archive written by the reference InMemoryBackend.export_archive", async () => {
    const files = { "src/main.py": "print('hello')", "README.md": "# Project", "notes/ü.txt": "ünïcödé" };
    const archive = nodePath.join(tempDir(), "mem.fs.zip");
    await python(REFERENCE, ["memory-export", JSON.stringify(files), archive]);
    const tx = new RecordingTransaction();
    await extractArchive(archive, tx);
    expect(Object.fromEntries([...tx.files()].map(([p, node]) => [p, new TextDecoder().decode(node.data)]))).toEqual(files);
  });

  it("our archive imports with the reference HostBackend.import_archive, byte for byte", async () => {
    const tree = nodePath.join(tempDir(), "tree");
    const files = await makeTree(tree);
    const archive = nodePath.join(tempDir(), "ours.fs.zip");
    await writeArchive(archive, walkDirectory(tree));
    const restored = nodePath.join(tempDir(), "restored");
    expect((await python(REFERENCE, ["host-import", restored, archive])).trim()).toBe(String(files.size));
    const back = await readTree(restored);
    expect([...back.keys()].sort()).toEqual([...files.keys()].sort());
    for (const [path, content] of files) expect(back.get(path)?.equals(content), path).toBe(true);
  });

  it("unzip extracts our archive with contents, exec bits and empty directories", async () => {
    const tree = nodePath.join(tempDir(), "tree");
    const files = await makeTree(tree);
    const archive = nodePath.join(tempDir(), "ours.fs.zip");
    await writeArchive(archive, walkDirectory(tree));
    const out = nodePath.join(tempDir(), "unzipped");
    await execFileAsync("unzip", ["-q", archive, "-d", out]);
    const back = await readTree(nodePath.join(out, "files"));
    for (const [path, content] of files) expect(back.get(path)?.equals(content), path).toBe(true);
    expect((await stat(nodePath.join(out, "files/bin/run.sh"))).mode & 0o777).toBe(0o755);
    expect((await stat(nodePath.join(out, "files/empty-dir"))).isDirectory()).toBe(true);
  });

  it("export → import through a real directory reproduces the tree (modes and empty directories included)", async () => {
    const tree = nodePath.join(tempDir(), "tree");
    await makeTree(tree);
    const archive = nodePath.join(tempDir(), "ours.fs.zip");
    await writeArchive(archive, walkDirectory(tree));
    const restored = nodePath.join(tempDir(), "restored");
    await mkdir(restored);
    await extractArchive(archive, new DirectoryTransaction(restored));
    const listing = (root: string) => execFileSync("find", [root, "-mindepth", "1", "-printf", "%P %y %m %s\n"], { encoding: "utf8" }).trim().split("\n").sort();
    expect(listing(restored)).toEqual(listing(tree));
    const [a, b] = [await readTree(tree), await readTree(restored)];
    for (const [path, content] of a) expect(b.get(path)?.equals(content), path).toBe(true);
  });
});
