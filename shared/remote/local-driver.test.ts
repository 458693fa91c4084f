import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SourceError } from "../errors.js";
import { describeSourceContract, replaceFile } from "./contract.test-support.js";
import { createLocalDriver } from "./local-driver.node.js";
import { Source } from "./source.js";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function newRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), "wink-local-source-"));
  roots.push(root);
  return root;
}


describeSourceContract({
  name: "local folder",
  sameSizeRewriteDetected: true,
  fresh: async () => {
    const root = newRoot();
    return {
      source: new Source(createLocalDriver({ root })),
      put: async (key, body) => replaceFile(root, key, body),
      remove: async (key) => rmSync(path.join(root, key)),
    };
  },
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(SourceError);
    return (error as SourceError).code;
  }
}

describe("local folder driver", () => {
  it("never follows symlinks: listings skip and count them, reads refuse them, a linked folder is not entered", async () => {
    const root = newRoot();
    const outside = newRoot();
    writeFileSync(path.join(outside, "secret.txt"), "secret");
    replaceFile(root, "runs/a.jsonl", "{}\n");
    symlinkSync(path.join(outside, "secret.txt"), path.join(root, "runs", "link.jsonl"));
    symlinkSync(outside, path.join(root, "escape"));
    const source = new Source(createLocalDriver({ root }));
    const page = await source.list("", {});
    expect(page.objects.map((object) => object.key)).toEqual(["runs/a.jsonl"]);
    expect(page.skipped).toBe(2);
    expect(await codeOf(source.read("runs/link.jsonl", { offset: 0, length: 3 }))).toBe("E_SOURCE_FORBIDDEN");
    expect(await codeOf(source.stat("runs/link.jsonl"))).toBe("E_SOURCE_FORBIDDEN");
    expect(await codeOf(source.read("escape/secret.txt", { offset: 0, length: 3 }))).toBe("E_SOURCE_FORBIDDEN");
    expect((await source.list("escape/", {})).objects).toEqual([]);
  });

  it("refuses a FIFO without blocking on it", async () => {
    const root = newRoot();
    execFileSync("mkfifo", [path.join(root, "pipe.jsonl")]);
    const source = new Source(createLocalDriver({ root }), { timeoutMs: 5_000 });
    expect(await codeOf(source.read("pipe.jsonl", { offset: 0, length: 10 }))).toBe("E_SOURCE_FORBIDDEN");
    expect((await source.list("")).skipped).toBe(1);
  });

  it("names a missing root folder", async () => {
    const source = new Source(createLocalDriver({ root: path.join(tmpdir(), "wink-no-such-root-for-sure") }));
    const error = await source.list("").catch((caught: unknown) => caught as SourceError);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).code).toBe("E_SOURCE_NOT_FOUND");
    expect((error as SourceError).message).toContain("wink-no-such-root-for-sure");
  });

  it("reports a file cut short under a reader as a change (size, mtime and ctime are in the validator)", async () => {
    const root = newRoot();
    replaceFile(root, "grow.jsonl", "x".repeat(100_000));
    const source = new Source(createLocalDriver({ root }));
    const reader = await source.open("grow.jsonl");
    truncateSync(path.join(root, "grow.jsonl"), 50_000);
    expect(await codeOf(reader.read(90_000, 100))).toBe("E_SOURCE_CHANGED");
  });

  it("reads a file truncated after it was opened as E_SOURCE_TRUNCATED, never as short data", async () => {
    const root = newRoot();
    replaceFile(root, "big.bin", Buffer.alloc(8 * 1024 * 1024, 7));
    const driver = createLocalDriver({ root });
    const body = await driver.read("big.bin", { offset: 0, length: 8 * 1024 * 1024 });
    truncateSync(path.join(root, "big.bin"), 1024);
    let received = 0;
    for await (const chunk of body.chunks) received += chunk.byteLength;
    expect(received).toBeLessThan(body.length);
    // The same cut through Source, which counts what arrived against what was announced.
    replaceFile(root, "big.bin", Buffer.alloc(8 * 1024 * 1024, 7));
    const source = new Source(createLocalDriver({ root }), { retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 } });
    const stream = await source.stream("big.bin", { offset: 0, length: 8 * 1024 * 1024 });
    truncateSync(path.join(root, "big.bin"), 1024);
    let error: unknown = null;
    try {
      for await (const chunk of stream.chunks) expect(chunk.byteLength).toBeGreaterThan(0);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).code).toBe("E_SOURCE_TRUNCATED");
    expect((error as SourceError).message).toContain("big.bin");
  });
});
