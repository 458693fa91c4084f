// One big line's raw answer and its parse take turns (issue 33 item 3): a parse asked while the
// line is transcoded for /api/raw, or while that answer is still being sent, starts after it.
// The memory test in server/big-line-memory.test.ts measures what this saves; RSS on a busy
// machine swings too much to tell the order apart, which is checked here.
import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, snapshotLine, tempDir, writeSession } from "../server.test-support.js";
import { openServedState } from "./served-state.js";
import type { SessionFileRecord, SnapshotDirectory } from "./snapshot-directory.js";

afterAll(cleanUp);

async function servedLine(): Promise<{ directory: SnapshotDirectory; record: SessionFileRecord }> {
  const dir = await tempDir("wink-line-turns-");
  await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "turns" })]);
  const { directory } = (await openServedState({ path: dir })).state;
  const record = directory.get("run.jsonl");
  if (record === undefined) throw new Error("run.jsonl not listed");
  return { directory, record };
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

describe("a line's parse and its raw answer", () => {
  it("parses after a transcode of the same line under way, not beside it", async () => {
    const { directory, record } = await servedLine();
    const transcode = gate();
    const transcoding = directory.transcodingLine(record, 1, () => transcode.promise);
    const parse = directory.readSnapshot(record, 1);
    expect(await settlesWithin(parse, 300)).toBe(false);
    transcode.open();
    await transcoding;
    expect((await parse).raw).toMatchObject({ tags: { session_id: "turns" } });
  });

  it("parses after the raw answer has been sent, or after the wait's cap at most", async () => {
    const { directory, record } = await servedLine();
    const sent = gate();
    directory.holdParses(record, 1, sent.promise);
    const parse = directory.readSnapshot(record, 1);
    expect(await settlesWithin(parse, 300)).toBe(false);
    sent.open();
    expect(await settlesWithin(parse, 5_000)).toBe(true);

    // A client that never reads its answer holds the line's parses for the cap only.
    const { directory: other, record: line } = await servedLine();
    other.holdParses(line, 1, new Promise(() => undefined), 200);
    expect(await settlesWithin(other.readSnapshot(line, 1), 3_000)).toBe(true);
  });

  it("parses at once when nothing holds the line", async () => {
    const { directory, record } = await servedLine();
    expect(await settlesWithin(directory.readSnapshot(record, 1), 3_000)).toBe(true);
  });
});
