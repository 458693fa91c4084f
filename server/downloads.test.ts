/**
 * Issue 14, finding 3: a 200 KB bomb became gigabytes. The viewer did not apply the
 * compression-ratio limit import applies, and `/api/filesystem/download` read the whole
 * entry into memory: 8 parallel downloads of the corpus's `50-bomb-ratio` took the server
 * from 75 MB to 3.3 GB. Over real HTTP on loopback (curl in its own processes), with the
 * server's peak RSS measured from /proc (VmHWM, reset before each case).
 */
import { copyFile, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { patchCrc } from "../shared/archive/archive.test-support.js";
import { InMemoryFilesystem } from "../shared/filesystem/memory/index.js";
import type { AppOptions, WinkApp } from "./app.js";
import { curlGet } from "./loopback-client.test-support.js";
import { SECURITY, cleanUp, snapshotLine, tempDir, testApp } from "./server.test-support.js";

afterEach(cleanUp);

const BOMB_SIZE = 200 * 1024 * 1024;
const MiB = 1024 * 1024;

/** This process's resident memory now and its peak since the last reset, in bytes. */
function memory(): { rss: number; peak: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

/** Resets the peak to the current RSS (Linux: clear_refs 5). */
function resetPeak(): void {
  writeFileSync("/proc/self/clear_refs", "5");
}

async function servedArchive(archive: string | ((target: string) => Promise<void>), options: Partial<AppOptions> = {}): Promise<{ app: WinkApp; url: (path: string) => string }> {
  const dir = await tempDir();
  await writeFile(path.join(dir, "run.jsonl"), `${snapshotLine({ sessionId: "s" })}\n`);
  const target = path.join(dir, "run.fs.zip");
  if (typeof archive === "string") await copyFile(archive, target);
  else await archive(target);
  const app = await testApp({ path: dir, ...options });
  await app.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (app.app.server.address() as { port: number }).port;
  return { app, url: (file) => `http://127.0.0.1:${port}/api/filesystem/download?file=run.jsonl&path=${encodeURIComponent(file)}` };
}

describe("downloads stream, and the bomb is refused before inflating (issue 14, finding 3)", () => {
  it("8 parallel downloads of 50-bomb-ratio's 200 MiB entry are refused (413) by ratio, and memory stays flat", async () => {
    const { app, url } = await servedArchive(path.join(SECURITY, "zips", "50-bomb-ratio.zip"));
    resetPeak();
    const before = memory();
    const answers = await Promise.all(Array.from({ length: 8 }, () => curlGet(url("zeros.bin"))));
    expect(answers.map((answer) => `${answer.status} (curl exit ${answer.exitCode})`)).toEqual(Array(8).fill("413 (curl exit 0)"));
    expect(memory().peak - before.rss).toBeLessThan(64 * MiB);
    // The refusal names the entry and the ratio; the small file beside it still downloads.
    const detail = (await (await fetch(url("zeros.bin"))).json()) as { detail: string };
    expect(detail.detail).toMatch(/Compression ratio \d+:1 exceeds the limit of 200:1.*files\/zeros\.bin/);
    expect(await (await fetch(url("ok.txt"))).text()).toBe("ok\n");
    await app.app.close();
  }, 120_000);

  it("with the ratio limit raised, 8 slow readers each receive all 200 MiB while the server's peak RSS grows by far less than one copy", async () => {
    const { app, url } = await servedArchive(path.join(SECURITY, "zips", "50-bomb-ratio.zip"), { archiveCache: { limits: { maxCompressionRatio: 5000 } } });
    resetPeak();
    const before = memory();
    const answers = await Promise.all(Array.from({ length: 8 }, () => curlGet(url("zeros.bin"), { timeoutSeconds: 160, extraArgs: ["--limit-rate", "40M"] })));
    expect(answers.map((answer) => `${answer.status} ${answer.bytes} bytes, curl exit ${answer.exitCode}`)).toEqual(Array(8).fill(`200 ${BOMB_SIZE} bytes, curl exit 0`));
    // Buffered, this was 8 × 200 MiB; streamed, a few chunks per connection.
    expect(memory().peak - before.rss).toBeLessThan(160 * MiB);
    await app.app.close();
  }, 180_000);

  it("a download whose CRC-32 fails never completes: the last chunk is held back until the check passes", async () => {
    const content = randomBytes(3 * MiB);
    const { url } = await servedArchive(async (target) => {
      const fs = new InMemoryFilesystem();
      await fs.writeBytes("data.bin", content);
      await fs.writeBytes("good.bin", content);
      await fs.exportArchive(target);
      await patchCrc(target, "files/data.bin", 0xdeadbeef);
    });
    const bad = await curlGet(url("data.bin"));
    expect(bad.status).toBe(200);
    expect(bad.exitCode).toBe(18); // "transfer closed with outstanding read data remaining"
    expect(bad.bytes).toBeLessThan(content.length);
    const good = await fetch(url("good.bin"));
    expect(Buffer.from(await good.arrayBuffer()).equals(content)).toBe(true);
  }, 120_000);

  it("a client that goes away mid-download leaves the server serving", async () => {
    const content = randomBytes(32 * MiB);
    const { url } = await servedArchive(async (target) => {
      const fs = new InMemoryFilesystem();
      await fs.writeBytes("big.bin", content);
      await fs.exportArchive(target);
    });
    const cut = await curlGet(url("big.bin"), { timeoutSeconds: 1, extraArgs: ["--limit-rate", "1M"] });
    expect(cut.exitCode).toBe(28);
    const whole = await fetch(url("big.bin"));
    expect(whole.headers.get("content-length")).toBe(String(content.length));
    expect(Buffer.from(await whole.arrayBuffer()).equals(content)).toBe(true);
  }, 120_000);
});
