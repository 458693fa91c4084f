import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WINK_FIXTURES, securityFixture } from "../../fixtures/paths.js";
import type { PhysicalLine } from "./session-file.node.js";
import { readPhysicalLines, readSnapshotAt, scanSessionFile } from "./session-file.node.js";
import { SessionIndexBuilder, linesOfChunks, snapshotFromLineBytes } from "./session-scan.node.js";

const files = [
  ...readdirSync(WINK_FIXTURES, { recursive: true, encoding: "utf8" })
    .map((name) => join(WINK_FIXTURES, name))
    .filter((path) => path.endsWith(".jsonl") && statSync(path).isFile()),
  securityFixture("hostile-session.jsonl"),
];

/** `bytes` cut into chunks of the given sizes (cycled), each a fresh copy as a network body gives. */
async function* chunked(bytes: Uint8Array, sizes: readonly number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length] as number;
    yield bytes.slice(at, at + size);
    at += size;
  }
}

async function collect(lines: AsyncIterable<PhysicalLine>): Promise<PhysicalLine[]> {
  const out: PhysicalLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/**
 * Lines with their bytes as latin1 text: the same comparison, but a string compare instead of
 * toEqual walking hundreds of KB byte by byte (43 s for the 950 KB fixture on a loaded machine).
 */
async function collectAsText(lines: AsyncIterable<PhysicalLine>): Promise<{ lineNumber: number; byteOffset: number; byteLength: number; text: string | null }[]> {
  return (await collect(lines)).map(({ lineNumber, byteOffset, byteLength, bytes }) => ({ lineNumber, byteOffset, byteLength, text: bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1") }));
}

describe("linesOfChunks", () => {
  it.each(files)("splits %s into the lines the file reader gives, however the bytes are cut", async (path) => {
    const bytes = readFileSync(path);
    const expected = await collectAsText(readPhysicalLines(path));
    // One-byte chunks cut every line everywhere; big files get odd sizes that still cut mid-line.
    const cuts = bytes.length < 64 * 1024 ? [[1], [7, 1, 3]] : [[997, 1, 3]];
    for (const sizes of [...cuts, [4096], [bytes.length + 1]]) {
      expect(await collectAsText(linesOfChunks(chunked(bytes, sizes)))).toEqual(expected);
    }
  });

  it("follows the reader's rules at the edges: blank lines count, no line after a final newline, a last line without one", async () => {
    const lines = await collect(linesOfChunks(chunked(new TextEncoder().encode("a\n\n\r\nbc"), [2])));
    expect(lines.map((line) => [line.lineNumber, line.byteOffset, line.byteLength])).toEqual([
      [1, 0, 1],
      [2, 2, 0],
      [3, 3, 1],
      [4, 5, 2],
    ]);
    expect(await collect(linesOfChunks(chunked(new TextEncoder().encode("a\n"), [1])))).toHaveLength(1);
    expect(await collect(linesOfChunks(chunked(new Uint8Array(0), [1])))).toEqual([]);
  });

  it("reports a line over the cap without its bytes and goes on with the next", async () => {
    const text = `${"x".repeat(100)}\nshort\n`;
    const lines = await collect(linesOfChunks(chunked(new TextEncoder().encode(text), [7]), 50));
    expect(lines.map((line) => [line.lineNumber, line.byteLength, line.bytes === null])).toEqual([
      [1, 100, true],
      [2, 5, false],
    ]);
  });
});

describe("SessionIndexBuilder", () => {
  it.each(files)("builds the index scanSessionFile builds for %s, from a stream", async (path) => {
    const builder = new SessionIndexBuilder();
    for await (const line of linesOfChunks(chunked(readFileSync(path), [1000, 17]))) builder.add(line);
    const scanned = await scanSessionFile(path);
    expect({ lineCount: builder.lineCount, entries: builder.lines.toArray(), errors: builder.errors }).toEqual({ lineCount: scanned.lineCount, entries: scanned.entries, errors: scanned.errors });
  });

  it("parses an indexed line's bytes as readSnapshotAt parses the line", async () => {
    const path = files[0] as string;
    const bytes = readFileSync(path);
    for (const entry of (await scanSessionFile(path)).entries) {
      const fromBytes = snapshotFromLineBytes(bytes.subarray(entry.byteOffset, entry.byteOffset + entry.byteLength), entry.lineNumber);
      expect(fromBytes).toEqual(await readSnapshotAt(path, entry));
    }
    expect(snapshotFromLineBytes(new TextEncoder().encode("  "), 1)).toEqual({ ok: false, error: { lineNumber: 1, kind: "json", reason: "The line is blank" } });
  });
});
