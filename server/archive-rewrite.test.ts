/**
 * Issue 29, item 9, for real: the CLI serves a folder whose workspace archive is truncated,
 * then replaced by another archive under the same name, between two requests (no wait: the
 * server used to trust an archive it had checked less than a second before). Each answer
 * must be of one archive: after the swap, the new archive's tree and files, never the old
 * directory over the new bytes, never the truncated file's failure.
 */
import { copyFile, rename, stat, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryFilesystem } from "../shared/filesystem/memory/index.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { cleanUp, snapshotLine, tempDir } from "./server.test-support.js";

afterEach(async () => {
  stopClis();
  await cleanUp();
});

async function archive(target: string, files: Record<string, string>): Promise<void> {
  const fs = new InMemoryFilesystem();
  for (const [name, content] of Object.entries(files)) await fs.write(name, content);
  await fs.exportArchive(target);
}

async function served(): Promise<{ dir: string; url: string }> {
  const dir = await tempDir("wink-archive-rewrite-");
  await writeFile(path.join(dir, "run.jsonl"), `${snapshotLine({ sessionId: "s" })}\n`);
  await archive(path.join(dir, "run.fs.zip"), { "first.txt": "first archive\n" });
  await archive(path.join(dir, "second.zip.new"), { "second.txt": "second archive, another size\n" });
  const cli = startCli([dir, "--port", "0"]);
  return { dir, url: await waitForUrl(cli.output, 60_000) };
}

async function tree(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}api/filesystem/tree?file=run.jsonl`);
  return { status: response.status, body: await response.text() };
}

async function file(url: string, name: string): Promise<{ status: number; content: string | null }> {
  const response = await fetch(`${url}api/filesystem/file?file=run.jsonl&path=${name}`);
  const body = (await response.json()) as { content?: string };
  return { status: response.status, content: body.content ?? null };
}

describe("a workspace archive rewritten between two requests (issue 29, item 9)", () => {
  it.each([
    ["rewritten in place (same inode)", (from: string, to: string) => copyFile(from, to)],
    ["replaced by a rename", async (from: string, to: string) => {
      await copyFile(from, `${to}.tmp`);
      await rename(`${to}.tmp`, to);
    }],
  ])("truncated, then %s: the new archive is read at once, never a mix", async (_how, replace) => {
    const { dir, url } = await served();
    const target = path.join(dir, "run.fs.zip");
    expect(await tree(url)).toEqual({ status: 200, body: '[{"path":"first.txt","size_bytes":14}]' });
    // Twice: the rendered answer is then cached (on its second use).
    for (let i = 0; i < 2; i++) expect(await file(url, "first.txt")).toEqual({ status: 200, content: "first archive\n" });

    await truncate(target, 100);
    // The truncated file is what is there now: no workspace, and why, not the old archive's listing.
    expect(await tree(url)).toEqual({ status: 200, body: "[]" });
    expect((await file(url, "first.txt")).status).toBe(404);
    const meta = (await (await fetch(`${url}api/filesystem/meta?file=run.jsonl`)).json()) as { error: string | null };
    expect(meta.error).toContain("run.fs.zip cannot be opened");

    const before = await stat(target);
    await replace(path.join(dir, "second.zip.new"), target);
    const after = await stat(target);
    expect(after.size).not.toBe(before.size);
    expect(await tree(url)).toEqual({ status: 200, body: '[{"path":"second.txt","size_bytes":29}]' });
    expect(await file(url, "second.txt")).toEqual({ status: 200, content: "second archive, another size\n" });
    expect((await file(url, "first.txt")).status).toBe(404);
  }, 90_000);

  it("rewritten in place with a cached answer: the answer is the new archive's at once", async () => {
    const { dir, url } = await served();
    for (let i = 0; i < 3; i++) expect(await file(url, "first.txt")).toEqual({ status: 200, content: "first archive\n" });
    await copyFile(path.join(dir, "second.zip.new"), path.join(dir, "run.fs.zip"));
    expect((await file(url, "first.txt")).status).toBe(404);
    expect(await file(url, "second.txt")).toEqual({ status: 200, content: "second archive, another size\n" });
  }, 90_000);
});
