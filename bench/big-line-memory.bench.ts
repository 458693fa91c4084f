/**
 * Peak RSS of the server answering `/api/raw` for one ~100 MiB session line (200,000 items,
 * each with a bare `NaN` and an integer beyond 2^53, so the strict JSON is not the native
 * serialiser's), then `/api/slices` of its whole slice, then three `/api/raw` at once in a
 * new process: first use of the file served alone (the landing page's run, rendered at
 * start, parses the line on the event loop meanwhile). Then `/api/raw`'s own cost: the line
 * in a folder where another file is the newest run, the worker thread started on a 2 MiB
 * line, the peak restarted (`clear_refs`) once the big file is indexed; one request (then,
 * from a restarted peak, `/api/slices` of the whole slice: the line parsed in full), then
 * three at once. Peak RSS (VmHWM) is read from /proc. The CLI runs from its sources (tsx)
 * unless WINK_CLI names a built one (dist/server/cli.cjs).
 *
 * Run: node --import tsx bench/big-line-memory.bench.ts
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, existsSync } from "node:fs";
import { copyFile, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { WORK } from "./server-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const MIB = 1024 * 1024;

async function writeBigLine(file: string, items = 200_000, sessionId = "big-run"): Promise<void> {
  if (existsSync(file)) return;
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write('{"children_ids": [], "created_at": "2026-11-22T01:00:00.000000+00:00", "parent_id": null, "slices": [{"item_type": "app:Note", "items": [');
  for (let i = 0; i < items; i++) await write(`${i > 0 ? ", " : ""}{"__type__": "app:Note", "n": ${i}, "big": 123456789012345678901234567890, "f": NaN, "text": "${"x".repeat(430)}"}`);
  await write(`], "slice_type": "app:Note"}], "tags": {"session_id": "${sessionId}"}, "version": "1"}\n`);
  out.end();
  await once(out, "finish");
}

async function serve(file: string, run: (base: string, peak: () => Promise<number>, restartPeak: () => Promise<number>) => Promise<void>): Promise<void> {
  const cli = process.env.WINK_CLI;
  const args = cli === undefined ? ["--import", "tsx", path.join(ROOT, "server", "cli.ts")] : [cli];
  const child = spawn(process.execPath, [...args, file, "--port", "0", "--no-open"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const peak = async (): Promise<number> => Number(/VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  try {
    const port = await new Promise<string>((resolve) => {
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /127\.0\.0\.1:(\d+)\//.exec(output);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
    });
    const restartPeak = async (): Promise<number> => {
      await writeFile(`/proc/${child.pid}/clear_refs`, "5");
      return peak();
    };
    await run(`http://127.0.0.1:${port}`, peak, restartPeak);
  } finally {
    child.kill("SIGTERM");
  }
}

async function drain(url: string): Promise<number> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
  return bytes;
}

async function main(): Promise<void> {
  await mkdir(WORK, { recursive: true });
  const file = path.join(WORK, "big-line-100mib.jsonl");
  await writeBigLine(file);
  const line = (await stat(file)).size / MIB;
  const show = (label: string, before: number, after: number): void => console.log(`${label}: peak ${after.toFixed(0)} MiB (from ${before.toFixed(0)}), +${((after - before) / line).toFixed(2)}× the ${line.toFixed(0)} MiB line`);
  await serve(file, async (base, peak) => {
    await drain(`${base}/api/meta`);
    const before = await peak();
    await drain(`${base}/api/raw`);
    show("/api/raw", before, await peak());
    await drain(`${base}/api/slices/app%3ANote?limit=1000000`);
    show("then /api/slices (whole slice)", before, await peak());
  });
  await serve(file, async (base, peak) => {
    await drain(`${base}/api/meta`);
    const before = await peak();
    await Promise.all([1, 2, 3].map(() => drain(`${base}/api/raw`)));
    show("three /api/raw at once", before, await peak());
  });
  // /api/raw's own cost: the big line is not the newest run, so nothing else parses it.
  const folder = path.join(WORK, "big-line-folder");
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  await copyFile(file, path.join(folder, "big.jsonl"));
  await writeBigLine(path.join(folder, "newest.jsonl"), 4_000, "warm-run");
  for (const requests of [1, 3]) {
    await serve(folder, async (base, peak, restartPeak) => {
      await drain(`${base}/api/run`);
      await drain(`${base}/api/raw?file=newest.jsonl&line=1`);
      await drain(`${base}/api/meta?file=big.jsonl&line=1`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const before = await restartPeak();
      await Promise.all(Array.from({ length: requests }, () => drain(`${base}/api/raw?file=big.jsonl&line=1`)));
      show(`/api/raw's own, ${requests === 1 ? "one request" : "three at once"}`, before, await peak());
      if (requests > 1) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
      const unparsed = await restartPeak();
      await drain(`${base}/api/slices/app%3ANote?file=big.jsonl&line=1&limit=1000000`);
      show("then a full parse on the event loop (/api/slices, whole slice)", unparsed, await peak());
    });
  }
}

await main();
