// Lines longer than a read chunk are scanned where they lie, through one reused window
// (long-line-window.node.ts). Whatever sits where the window moves on (a character cut in
// two, a run of backslashes before a quote, a key, a slice's type), the index must be the one
// reading each line whole gives, errors included.
import { closeSync, openSync, readSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanEnvelopeWindow } from "./envelope-scan.js";
import { LongLineWindow } from "./long-line-window.node.js";
import { dumpsPython } from "./python-json-dumps.js";
import { readPhysicalLines, scanSessionFile } from "./session-file.node.js";
import { SessionIndexBuilder } from "./session-scan.node.js";

const MiB = 1024 * 1024;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wink-long-line-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The index as reading every line whole builds it (the path long lines took before). */
async function wholeLineIndex(path: string): Promise<{ lineCount: number; entries: unknown[]; errors: unknown[] }> {
  const builder = new SessionIndexBuilder();
  for await (const line of readPhysicalLines(path)) builder.add(line);
  return { lineCount: builder.lineCount, entries: builder.lines.toArray(), errors: builder.errors };
}

async function expectSameIndex(path: string, chunkBytes?: number): Promise<Awaited<ReturnType<typeof scanSessionFile>>> {
  const index = await scanSessionFile(path, chunkBytes === undefined ? {} : { chunkBytes });
  expect({ lineCount: index.lineCount, entries: index.entries, errors: index.errors }).toEqual(await wholeLineIndex(path));
  return index;
}

/** A small deterministic generator (the same files at every run). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// Escapes, backslash runs before quotes, and characters of 2, 3 and 4 bytes.
const PIECES = ['a\\"b', "\\\\", '\\\\\\"', "é", "€", "😀", "x".repeat(7), '"', "\t", "plain text "];

/** Python's json.dumps escapes non-ASCII characters: WINK files may hold them raw, as UTF-8. */
function rawCharacters(json: string): string {
  return json.replace(/\\u00e9/g, "é").replace(/\\u20ac/g, "€").replace(/\\ud83d\\ude00/g, "😀");
}

function snapshot(sessionId: string, next: () => number, bytes: number): string {
  const slices: unknown[] = [];
  let size = 0;
  for (let s = 0; size < bytes; s++) {
    const items: unknown[] = [];
    const itemCount = 1 + Math.floor(next() * 6);
    for (let i = 0; i < itemCount; i++) {
      let text = "";
      while (text.length < 200 + next() * 4000) text += PIECES[Math.floor(next() * PIECES.length)];
      size += text.length;
      items.push(i === 0 && s % 3 === 0 ? { event_id: `e${s}`, created_at: "2024-01-15T10:30:00+00:00", text } : { text, n: i, ok: next() < 0.5, none: null });
    }
    slices.push({ slice_type: `app.models:Slice${s}`, item_type: `app.models:Item${s}`, items });
  }
  return rawCharacters(dumpsPython({ version: "1", created_at: "2024-01-15T10:30:00+00:00", slices, tags: { session_id: sessionId, note: "é".repeat(Math.floor(next() * 50)) } }, { sortKeys: true }));
}

describe("scanSessionFile on lines longer than a read chunk", () => {
  it("indexes long lines of escapes, backslash runs and multi-byte characters as reading them whole does, wherever the window moves on", async () => {
    const next = random(17);
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) lines.push(snapshot(`line-${i}`, next, 2000 + Math.floor(next() * 30_000)));
    const path = join(dir, "long-lines.jsonl");
    await writeFile(path, `${lines.join("\n")}\n`);
    // Small windows move on everywhere: inside strings, keys, slice types, characters and backslash runs.
    for (const chunkBytes of [16, 37, 64, 251, 4096]) {
      const index = await expectSameIndex(path, chunkBytes);
      expect(index.errors).toEqual([]);
      expect(index.entries.map((entry) => entry.sessionId)).toEqual(lines.map((_, i) => `line-${i}`));
    }
    // And lines longer than the default chunk of 1 MiB.
    const long = [snapshot("long-1", next, 1.2 * MiB), snapshot("long-2", next, 2.5 * MiB)];
    await writeFile(path, `${long.join("\n")}\n`);
    const index = await expectSameIndex(path);
    expect(index.entries.map((entry) => [entry.sessionId, entry.slices.length > 100])).toEqual([
      ["long-1", true],
      ["long-2", true],
    ]);
  });

  it.each([undefined, 61])("gives the whole-line verdict for a long line with bad UTF-8, bad JSON or no envelope, and loads the lines around it (chunk: %s)", async (chunkBytes) => {
    const next = random(5);
    const good = (id: string) => Buffer.from(snapshot(id, next, chunkBytes === undefined ? 1.5 * MiB : 20_000));
    const badUtf8 = good("bad-utf8");
    badUtf8[Math.floor(badUtf8.length * 0.7)] = 0xff;
    const cut = good("cut-character");
    // A 3-byte character cut short deep inside the line: a lead byte, then a quote.
    const at = cut.indexOf("x".repeat(7), cut.length * 0.8);
    cut[at] = 0xe2;
    cut[at + 1] = 0x82;
    const badJson = Buffer.from(good("bad-json").toString().replace('}, {"n": 1, ', '} {"n": 1, '));
    const noEnvelope = Buffer.from(good("no-envelope").toString().replace('"version": "1"', '"version": 1'));
    const path = join(dir, "bad-long-lines.jsonl");
    await writeFile(path, Buffer.concat([good("before"), Buffer.from("\n"), badUtf8, Buffer.from("\n"), cut, Buffer.from("\n"), badJson, Buffer.from("\n"), noEnvelope, Buffer.from("\n"), good("after")]));
    const index = await expectSameIndex(path, chunkBytes);
    expect(index.errors.map((error) => [error.lineNumber, error.kind])).toEqual([
      [2, "encoding"],
      [3, "encoding"],
      [4, "json"],
      [5, "envelope"],
    ]);
    expect(index.entries.map((entry) => entry.sessionId)).toEqual(["before", "after"]);
  });

  it.each([undefined, 29])("strips a BOM and CRs, reads a last line without a newline, and keeps a key or value longer than the window (chunk: %s)", async (chunkBytes) => {
    const next = random(9);
    const size = chunkBytes === undefined ? MiB : 10_000;
    const first = snapshot("bom", next, 1.2 * size);
    const huge = rawCharacters(dumpsPython({ version: "1", created_at: "2024-01-15T10:30:00+00:00", slices: [], tags: { session_id: "huge-tag", blob: "é".repeat(1.5 * size) } }, { sortKeys: true }));
    const last = snapshot("last", next, 1.1 * size);
    const path = join(dir, "bom-crlf.jsonl");
    await writeFile(path, `\ufeff${first}\r\n${huge}\r\n${last}`);
    const index = await expectSameIndex(path, chunkBytes);
    expect(index.entries.map((entry) => [entry.sessionId, entry.byteLength])).toEqual([
      ["bom", Buffer.byteLength(first) + 4],
      ["huge-tag", Buffer.byteLength(huge) + 1],
      ["last", Buffer.byteLength(last)],
    ]);
    expect(index.entries[1]?.tags.blob).toHaveLength(1.5 * size);
  });

  it("reports a long line over maxLineBytes as too long, as the whole-line path does", async () => {
    const next = random(3);
    const path = join(dir, "capped.jsonl");
    await writeFile(path, `${snapshot("small", next, 1000)}\n${snapshot("over", next, 2.5 * MiB)}\n${snapshot("small-2", next, 1000)}\n`);
    const index = await scanSessionFile(path, { maxLineBytes: 2 * MiB });
    expect(index.errors.map((error) => [error.lineNumber, error.kind])).toEqual([[2, "too-long"]]);
    expect(index.entries.map((entry) => entry.sessionId)).toEqual(["small", "small-2"]);
  });

  it("walks a line through a window of any size to its end, usable only when every byte of it is UTF-8", async () => {
    const next = random(11);
    const good = Buffer.from(snapshot("utf8", next, 6000));
    const bad = Buffer.from(good);
    bad[bad.indexOf("x".repeat(7))] = 0xff; // inside a string: the scan goes past it, the UTF-8 check must not
    for (const [line, valid] of [[good, true], [bad, false]] as const) {
      const path = join(dir, "window.jsonl");
      await writeFile(path, Buffer.concat([Buffer.from("{}\n"), line, Buffer.from("\nnext line\n")]));
      const fd = openSync(path, "r");
      try {
        for (const size of [5, 8, 13, 64, 1000]) {
          const head = Buffer.alloc(size);
          readSync(fd, head, 0, size, 3);
          const window = new LongLineWindow({ fd, buffer: Buffer.alloc(size), head, position: 3 + size, sizeHint: 3 + line.length + 11, lineNumber: 2, maxLineBytes: MiB });
          expect(scanEnvelopeWindow(window)?.sessionId).toBe("utf8");
          expect([window.usable, window.lineBytes]).toEqual([valid, line.length]);
          expect(window.position - (window.rest?.length ?? 0)).toBe(3 + line.length + 1);
        }
      } finally {
        closeSync(fd);
      }
    }
  });
});
