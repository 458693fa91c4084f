import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TarSpool } from "./tar-spool.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "wink-tar-test-"));
  dirs.push(dir);
  return dir;
}

describe("TarSpool", () => {
  it("writes archives GNU tar lists and extracts byte for byte, long names and modes included", async () => {
    const spool = await TarSpool.create(await scratch());
    const longDir = `${"d".repeat(90)}/${"e".repeat(90)}`;
    const longFile = `${longDir}/${"f".repeat(120)}.txt`;
    const binary = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13) % 256);
    await spool.directory("empty/dir", 0o750);
    for (const [path, data, mode] of [
      ["a.txt", Buffer.from("hello\n"), 0o644],
      ["bin/run.sh", Buffer.from("#!/bin/sh\necho hi\n"), 0o755],
      ["blob.bin", binary, 0o600],
      ["empty.txt", Buffer.alloc(0), 0o644],
      ["café/日本語.txt", Buffer.from("unicode"), 0o644],
      [longFile, Buffer.from("deep"), 0o644],
      ["-rf", Buffer.from("option-like"), 0o644],
    ] as const) {
      const sink = await spool.file(path, mode);
      // Several writes per file, like an archive entry streamed in chunks.
      for (let at = 0; at < data.length; at += 30_000) await sink.write(data.subarray(at, at + 30_000));
      await sink.close();
    }
    const size = await spool.finish();
    expect(size % 512).toBe(0);
    expect((await stat(spool.path)).size).toBe(size);

    const listing = execFileSync("tar", ["-tvf", spool.path], { encoding: "utf8" });
    expect(listing).toContain(longFile);
    expect(listing).toMatch(/^drwxr-x---.* empty\/dir\/$/m);
    expect(listing).toMatch(/^-rwxr-xr-x.* bin\/run\.sh$/m);

    const out = await scratch();
    execFileSync("tar", ["-xf", spool.path, "-C", out]);
    expect(await readFile(join(out, "a.txt"), "utf8")).toBe("hello\n");
    expect([...(await readFile(join(out, "blob.bin")))]).toEqual([...binary]);
    expect((await readFile(join(out, "empty.txt"))).length).toBe(0);
    expect(await readFile(join(out, "café/日本語.txt"), "utf8")).toBe("unicode");
    expect(await readFile(join(out, longFile), "utf8")).toBe("deep");
    expect(await readFile(join(out, "-rf"), "utf8")).toBe("option-like");
    expect((await stat(join(out, "bin/run.sh"))).mode & 0o777).toBe(0o755);
    expect((await stat(join(out, "empty/dir"))).isDirectory()).toBe(true);

    const streamed: Buffer[] = [];
    for await (const chunk of spool.chunks()) streamed.push(Buffer.from(chunk));
    expect(Buffer.concat(streamed).length).toBe(size);
    await spool.dispose();
    await spool.dispose();
  });

  it("refuses interleaved files and unfinished archives", async () => {
    const spool = await TarSpool.create(await scratch());
    const first = await spool.file("a", 0o644);
    await expect(spool.file("b", 0o644)).rejects.toMatchObject({ code: "EINVAL" });
    await expect(spool.finish()).rejects.toMatchObject({ code: "EINVAL" });
    await first.close();
    await expect(first.write(new Uint8Array([1]))).rejects.toMatchObject({ code: "EINVAL" });
    await spool.finish();
    await expect(spool.directory("late")).rejects.toMatchObject({ code: "EINVAL" });
    await spool.dispose();
  });
});
