/**
 * A big generated session file beside a one-line one, served on loopback with the big one
 * indexed already: what the "yields to other requests" tests (issue 29, item 5) measure
 * a request of the big file against, asking the small one's metadata meanwhile.
 */
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import type { WinkApp } from "./app.js";
import { snapshotLine, tempDir, testApp } from "./server.test-support.js";

/** Writes `count` lines (`lineAt(i)` each) to `file`, 5,000 at a time. */
export async function writeLines(file: string, count: number, lineAt: (index: number) => string): Promise<void> {
  const handle = await open(file, "w");
  try {
    const batch: string[] = [];
    for (let i = 0; i < count; i++) {
      batch.push(lineAt(i));
      if (batch.length === 5000 || i === count - 1) await handle.write(`${batch.splice(0).join("\n")}\n`);
    }
  } finally {
    await handle.close();
  }
}

export interface BigBesideSmall {
  readonly app: WinkApp;
  /** `http://127.0.0.1:PORT`. */
  readonly base: string;
}

/** `big.jsonl` of `lines` lines (`lineAt`) beside `small.jsonl`, served on loopback, the big one indexed. */
export async function serveBigBesideSmall(lines: number, lineAt: (index: number) => string): Promise<BigBesideSmall> {
  const dir = await tempDir();
  await writeLines(path.join(dir, "big.jsonl"), lines, lineAt);
  await writeFile(path.join(dir, "small.jsonl"), `${snapshotLine({ sessionId: "small" })}\n`);
  const app = await testApp({ path: dir });
  await app.app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;
  expect((await fetch(`${base}/api/meta?file=small.jsonl`)).status).toBe(200);
  const big = app.state.directory.get("big.jsonl");
  if (big === undefined) throw new Error("big.jsonl is not listed");
  expect((await app.state.directory.ensureIndexed(big)).lineCount).toBe(lines);
  return { app, base };
}
