import { execFileSync } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { readdirSync, readlinkSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionLoadError } from "../errors.js";
import { summarizeSnapshot } from "./envelope-scan.js";
import { dumpsPython } from "./python-json-dumps.js";
import type { PhysicalLine } from "./session-file.node.js";
import { readJsonLinesFile, readPhysicalLines, readSessionFile, readSnapshotAt, scanSessionFile } from "./session-file.node.js";
import { parseSessionText } from "./session-text.js";
import { WINK_FIXTURES, securityFixture } from "../../fixtures/paths.js";

const FIXTURES = WINK_FIXTURES;
const HOSTILE = securityFixture("hostile-session.jsonl");
const GEN_LARGE = securityFixture("gen_large.py");
const fixtureFiles = readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
  .map((name) => join(FIXTURES, name))
  .filter((path) => path.endsWith(".jsonl") && statSync(path).isFile());

function snapshotLine(sessionId: string, extra: Record<string, unknown> = {}): string {
  return dumpsPython({ version: "1", created_at: "2024-01-15T10:30:00+00:00", slices: [], tags: { session_id: sessionId }, ...extra }, { sortKeys: true });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wink-session-file-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("readSessionFile", () => {
  it.each(fixtureFiles)("streams %s to the same result as the in-memory reader", async (path) => {
    const streamed = await readSessionFile(path);
    expect(streamed).toEqual(parseSessionText(await readFile(path)));
    if (path.includes("invalid-for-wink-debug")) {
      expect(streamed.errors.map((error) => [error.lineNumber, error.kind])).toEqual(path.endsWith("missing-session-id.jsonl") ? [[1, "envelope"]] : []);
    } else {
      expect(streamed.errors).toEqual([]);
    }
  });

  it("agrees with the in-memory reader on the hostile file, line by line", async () => {
    expect(await readSessionFile(HOSTILE)).toEqual(parseSessionText(await readFile(HOSTILE)));
    expect(await readJsonLinesFile(HOSTILE)).toMatchObject({ lineCount: 40 });
  });

  it("joins lines that span read chunks and keeps the physical line numbers", async () => {
    const path = join(dir, "chunks.jsonl");
    const big = snapshotLine("big", { pad: "é".repeat(1_700_000) }); // ~3.4 MB: spans several 1 MiB reads
    await writeFile(path, `\ufeff${snapshotLine("a")}\r\n\n${big}\n   \n${snapshotLine("z")}`);
    const result = await readSessionFile(path);
    expect(result.errors).toEqual([]);
    expect(result.snapshots.map((s) => [s.sessionId, s.lineNumber])).toEqual([["a", 1], ["big", 3], ["z", 5]]);
    expect(result.lineCount).toBe(5);
    expect(result).toEqual(parseSessionText(await readFile(path)));
  });

  it("splits lines of every length around the read size into the file's exact bytes", async () => {
    const path = join(dir, "lengths.jsonl");
    const MiB = 1024 * 1024;
    const lengths = [0, 5, MiB - 1, MiB, MiB + 1, 2 * MiB - 3, 3, 2 * MiB + 7, 0, MiB / 2, 3 * MiB];
    const lines = lengths.map((length, index) => Buffer.alloc(length, 97 + index));
    const bytes = Buffer.concat(lines.flatMap((line) => [line, Buffer.from("\n")]));
    await writeFile(path, bytes.subarray(0, bytes.length - 1)); // the last line without its newline
    const read: PhysicalLine[] = [];
    for await (const line of readPhysicalLines(path)) read.push(line);
    expect(read.map((line) => [line.lineNumber, line.byteLength])).toEqual(lengths.map((length, index) => [index + 1, length]));
    read.forEach((line, index) => {
      expect(Buffer.compare(Buffer.from(line.bytes ?? new Uint8Array()), lines[index] as Buffer)).toBe(0);
      expect(line.byteOffset).toBe(lengths.slice(0, index).reduce((sum, length) => sum + length + 1, 0));
    });
  });

  it("indexes a file of many long lines (which share one buffer while scanned) as reading it whole does", async () => {
    const path = join(dir, "many-long.jsonl");
    // Longer, shorter, short, in between, longest, short again: each long line's bytes are read over the previous one's.
    const pads = [4_000_000, 1_500_000, 10, 2_500_000, 5_000_000, 1_200_000];
    const lines = pads.map((length, index) => snapshotLine(`line-${index}`, { slices: [{ slice_type: "t:Note", item_type: "t:Note", items: [{ text: String.fromCharCode(97 + index).repeat(length) }] }] }));
    await writeFile(path, `${lines.join("\n")}\n`);
    const index = await scanSessionFile(path);
    const whole = await readSessionFile(path);
    expect(index.errors).toEqual([]);
    expect(index.entries.map((entry) => entry.sessionId)).toEqual(pads.map((_, i) => `line-${i}`));
    expect(index.entries.map((entry) => entry.sessionId)).toEqual(whole.snapshots.map((snapshot) => snapshot.sessionId));
    expect(index.entries.map((entry) => entry.slices[0]?.count)).toEqual(pads.map(() => 1));
    let offset = 0;
    for (const [i, entry] of index.entries.entries()) {
      expect(entry.byteOffset).toBe(offset);
      expect(entry.byteLength).toBe(Buffer.byteLength(lines[i] as string));
      offset += entry.byteLength + 1;
      const read = await readSnapshotAt(path, entry);
      expect(read.ok && read.snapshot.sessionId).toBe(`line-${i}`);
    }
  });

  it("reads a long line whole when the file grows while it is read", async () => {
    const path = join(dir, "growing.jsonl");
    const head = Buffer.alloc(1536 * 1024, "h");
    await writeFile(path, Buffer.concat([Buffer.from("first\n"), head]));
    const lines = readPhysicalLines(path);
    expect((await lines.next()).value).toMatchObject({ lineNumber: 1, byteLength: 5 });
    const tail = Buffer.alloc(2 * 1024 * 1024, "t");
    await appendFile(path, Buffer.concat([tail, Buffer.from("\nlast")]));
    const second = (await lines.next()).value as PhysicalLine;
    expect(second).toMatchObject({ lineNumber: 2, byteOffset: 6, byteLength: head.length + tail.length });
    expect(Buffer.compare(Buffer.from(second.bytes ?? new Uint8Array()), Buffer.concat([head, tail]))).toBe(0);
    expect(Buffer.from(((await lines.next()).value as PhysicalLine).bytes ?? new Uint8Array()).toString()).toBe("last");
    expect((await lines.next()).done).toBe(true);
  });

  it("reports a line over maxLineBytes (even the last one, without a newline) and loads the rest", async () => {
    const path = join(dir, "long.jsonl");
    const long = snapshotLine("long", { pad: "x".repeat(3_000_000) });
    await writeFile(path, `${long}\n${snapshotLine("next")}\n${long}`);
    const result = await readSessionFile(path, { maxLineBytes: 1024 * 1024 });
    expect(result.snapshots.map((s) => s.sessionId)).toEqual(["next"]);
    expect(result.errors.map((e) => [e.lineNumber, e.kind])).toEqual([[1, "too-long"], [3, "too-long"]]);
    expect(result.errors[0]?.reason).toContain(`(${long.length.toLocaleString("en-US")} bytes), over the limit of 1.0 MiB`);
  });

  it("refuses an invalid UTF-8 line with fatal decoding and keeps the others", async () => {
    const path = join(dir, "utf8.jsonl");
    await writeFile(path, Buffer.concat([Buffer.from(`${snapshotLine("ok")}\n{"x": "`), Buffer.from([0xc3, 0x28]), Buffer.from(`"}\n${snapshotLine("ok2")}\n`)]));
    const result = await readSessionFile(path);
    expect(result.errors).toEqual([{ lineNumber: 2, kind: "encoding", reason: "Invalid UTF-8 at byte 8 of the line" }]);
    expect(result.snapshots.map((s) => s.sessionId)).toEqual(["ok", "ok2"]);
  });

  it("throws SessionLoadError for a missing file or a directory", async () => {
    await expect(readSessionFile(join(dir, "missing.jsonl"))).rejects.toMatchObject({ code: "E_SESSION_LOAD", message: expect.stringContaining("no such file") });
    await expect(readSessionFile(dir)).rejects.toBeInstanceOf(SessionLoadError);
  });

  it("closes the file when a reader stops early", async () => {
    const path = join(dir, "early.jsonl");
    await writeFile(path, `${snapshotLine("a")}\n${snapshotLine("b")}\n`);
    for await (const line of readPhysicalLines(path)) {
      expect(line).toMatchObject({ lineNumber: 1, byteOffset: 0 });
      break;
    }
    // Leaving the loop early must close the handle (no descriptor still points at the file).
    const handles = readdirSync("/proc/self/fd").map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return "";
      }
    });
    expect(handles.some((target) => target.startsWith(path))).toBe(false);
  });
});

describe("scanSessionFile + readSnapshotAt", () => {
  it.each(fixtureFiles)("indexes %s with the same summaries and errors as a full read", async (path) => {
    const full = await readSessionFile(path);
    const index = await scanSessionFile(path);
    expect(index.lineCount).toBe(full.lineCount);
    expect(index.errors).toEqual(full.errors);
    expect(index.entries.map(({ lineNumber, byteOffset: _o, byteLength: _l, ...summary }) => ({ lineNumber, ...summary }))).toEqual(
      full.snapshots.map((snapshot) => ({ lineNumber: snapshot.lineNumber, ...summarizeSnapshot(snapshot) })),
    );
    for (const entry of index.entries) {
      const again = await readSnapshotAt(path, entry);
      expect(again).toEqual({ ok: true, snapshot: full.snapshots.find((s) => s.lineNumber === entry.lineNumber) });
    }
  });

  it("gives the full reader's verdict for every hostile line, interleaved with valid ones", async () => {
    const path = join(dir, "hostile-mixed.jsonl");
    const hostile = await readFile(HOSTILE);
    await writeFile(path, Buffer.concat([Buffer.from(`${snapshotLine("first")}\n`), hostile, Buffer.from(`\n${snapshotLine("last", { slices: [{ slice_type: "m:E", items: [{ event_id: "e", created_at: "t" }, {}] }] })}\n`)]));
    const full = await readSessionFile(path);
    const index = await scanSessionFile(path);
    expect(index.errors).toEqual(full.errors);
    expect(index.entries.map((entry) => entry.sessionId)).toEqual(["first", "last"]);
    expect(index.entries[1]?.slices).toEqual([{ sliceType: "m:E", itemType: "m:E", displayName: "E", itemDisplayName: "E", count: 2, kind: "event" }]);
  });

  it("says the file changed instead of parsing another line", async () => {
    const path = join(dir, "stale.jsonl");
    await writeFile(path, `${snapshotLine("a")}\n${snapshotLine("b")}\n`);
    const index = await scanSessionFile(path);
    await writeFile(path, `${snapshotLine("a-longer-id")}\n${snapshotLine("b")}\n`);
    const result = await readSnapshotAt(path, index.entries[1]!);
    expect(result).toMatchObject({ ok: false, error: { lineNumber: 2, kind: "stale" } });
  });

  it("with the index given, notices a same-layout rewrite through size and mtime", async () => {
    const path = join(dir, "stale-same-size.jsonl");
    await writeFile(path, `${snapshotLine("a")}\n${snapshotLine("b")}\n`);
    const index = await scanSessionFile(path);
    expect(await readSnapshotAt(path, index.entries[1]!, { index })).toMatchObject({ ok: true, snapshot: { sessionId: "b" } });
    await writeFile(path, `${snapshotLine("a")}\n${snapshotLine("c")}\n`);
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    expect(await readSnapshotAt(path, index.entries[1]!)).toMatchObject({ ok: true, snapshot: { sessionId: "c" } });
    expect(await readSnapshotAt(path, index.entries[1]!, { index })).toMatchObject({ ok: false, error: { kind: "stale" } });
  });
});

describe("a 300 MiB line from gen_large.py huge-line", () => {
  let path: string;
  beforeAll(async () => {
    path = join(dir, "huge.jsonl");
    execFileSync("python3", [GEN_LARGE, "huge-line", path, "300"]);
    await appendFile(path, `${snapshotLine("after-huge")}\n`);
  }, 120_000);

  it("is reported as too long and the lines after it still load, in every reader", async () => {
    expect(statSync(path).size).toBeGreaterThan(300 * 1024 * 1024);
    const jsonLines = await readJsonLinesFile(path);
    expect(jsonLines.errors).toEqual([{ lineNumber: 1, kind: "too-long", reason: expect.stringContaining("300.0 MiB") }]);
    expect(jsonLines.records[0]).toEqual({ lineNumber: 2, value: { type: "message", role: "user", content: "after the huge line" } });
    expect(jsonLines.records.map((record) => record.lineNumber)).toEqual([2, 3]);
    const sessions = await readSessionFile(path);
    expect(sessions.snapshots.map((s) => [s.sessionId, s.lineNumber])).toEqual([["after-huge", 3]]);
    expect(sessions.errors.map((e) => [e.lineNumber, e.kind])).toEqual([[1, "too-long"], [2, "envelope"]]);
    const index = await scanSessionFile(path);
    expect(index.entries.map((e) => [e.sessionId, e.lineNumber])).toEqual([["after-huge", 3]]);
    expect(index.errors).toEqual(sessions.errors);
  }, 120_000);

  /** Peak RSS growth of a fresh process reading the file (the cap bounds what is buffered). */
  async function peakGrowthMiB(maxLineBytes: number | undefined): Promise<{ growthMiB: number; errors: string[]; loaded: number }> {
    const script = join(dir, "measure.mts");
    const reader = fileURLToPath(new URL("./session-file.node.js", import.meta.url));
    await writeFile(
      script,
      [
        `import { readJsonLinesFile } from ${JSON.stringify(reader)};`,
        "const before = process.memoryUsage.rss();",
        // maxRSS also remembers start-up peaks, so count it only if it rose during the read;
        // sampling catches the rest.
        "const maxBefore = process.resourceUsage().maxRSS * 1024;",
        "let peak = before;",
        "const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 1);",
        `const result = await readJsonLinesFile(process.argv[2], ${maxLineBytes === undefined ? "{}" : `{ maxLineBytes: ${maxLineBytes} }`});`,
        "clearInterval(timer);",
        "const maxAfter = process.resourceUsage().maxRSS * 1024;",
        "const growthMiB = (Math.max(peak, process.memoryUsage.rss(), maxAfter > maxBefore ? maxAfter : 0) - before) / 1048576;",
        "console.log(JSON.stringify({ growthMiB, errors: result.errors.map((e) => e.kind), loaded: result.records.length }));",
      ].join("\n"),
    );
    const output = execFileSync(process.execPath, ["--import", "tsx", script, path], { encoding: "utf8", cwd: fileURLToPath(new URL("../..", import.meta.url)) });
    return JSON.parse(output.trim().split("\n").pop() ?? "{}") as { growthMiB: number; errors: string[]; loaded: number };
  }

  it("keeps the reader's peak RSS near maxLineBytes, far below the line's size", async () => {
    const capped = await peakGrowthMiB(16 * 1024 * 1024);
    console.info(`huge-line RSS growth: ${capped.growthMiB.toFixed(1)} MiB with a 16 MiB cap`);
    expect(capped).toMatchObject({ errors: ["too-long"], loaded: 2 });
    expect(capped.growthMiB).toBeLessThan(16 + 48);
    const byDefault = await peakGrowthMiB(undefined);
    console.info(`huge-line RSS growth: ${byDefault.growthMiB.toFixed(1)} MiB with the default 128 MiB cap`);
    expect(byDefault).toMatchObject({ errors: ["too-long"], loaded: 2 });
    expect(byDefault.growthMiB).toBeLessThan(128 + 48);
  }, 120_000);
});
