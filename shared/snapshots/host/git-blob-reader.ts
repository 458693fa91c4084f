/**
 * Streaming many blobs out of a repository with one `git cat-file --batch` process: the
 * requests are written up front, the answers parsed in order, and each blob's bytes go
 * to a sink chosen by the caller (awaited, so writing a file applies backpressure).
 */
import { Buffer } from "node:buffer";

import { GitCommandError, type GitProcess } from "./git-process.js";

export interface BlobSink {
  write(chunk: Uint8Array): Promise<void> | void;
  close(): Promise<void> | void;
}

/** A requested object is not in the repository (or is not a blob). */
export class MissingObjectError extends Error {
  constructor(readonly oid: string) {
    super(`object ${oid} is missing from the snapshot repository`);
    this.name = "MissingObjectError";
  }
}

/**
 * Read `oids` in order; `open(i, size)` returns where blob `i` goes. Rejects with
 * MissingObjectError when one is missing, GitCommandError when git fails.
 */
export async function readBlobs(git: GitProcess, oids: readonly string[], open: (index: number, size: number) => Promise<BlobSink> | BlobSink): Promise<void> {
  if (oids.length === 0) return;
  const child = git.spawn(["cat-file", "--batch"]);
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 16 * 1024) stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code));
  });
  child.stdin.on("error", () => {
    // reported through the exit code / missing answers
  });
  child.stdin.end(oids.map((oid) => `${oid}\n`).join(""));

  let index = 0;
  let header = Buffer.alloc(0);
  let sink: BlobSink | null = null;
  let remaining = 0; // content bytes still expected for the current blob
  let trailer = false; // the LF after a blob's content
  try {
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      let chunk = data;
      while (chunk.length > 0) {
        if (sink !== null) {
          if (remaining > 0) {
            const take = Math.min(remaining, chunk.length);
            await sink.write(chunk.subarray(0, take));
            remaining -= take;
            chunk = chunk.subarray(take);
            continue;
          }
          if (trailer) {
            chunk = chunk.subarray(1);
            trailer = false;
            const done = sink;
            sink = null;
            await done.close();
            index += 1;
            continue;
          }
        }
        const newline = chunk.indexOf(0x0a);
        if (newline < 0) {
          header = Buffer.concat([header, chunk]);
          break;
        }
        const line = Buffer.concat([header, chunk.subarray(0, newline)]).toString("latin1");
        header = Buffer.alloc(0);
        chunk = chunk.subarray(newline + 1);
        const oid = oids[index] ?? "";
        const match = /^([0-9a-f]{40,64}) (\S+) (\d+)$/.exec(line);
        if (match === null || match[2] !== "blob") throw new MissingObjectError(oid);
        remaining = Number(match[3]);
        trailer = true;
        sink = await open(index, remaining);
      }
      if (index >= oids.length) break;
    }
    if (sink !== null && remaining === 0 && trailer) {
      // The final LF may arrive with the close; nothing left to write.
      await sink.close();
      sink = null;
      index += 1;
    }
  } finally {
    if (index < oids.length) child.kill("SIGKILL");
  }
  const code = await exited;
  if (index < oids.length) throw new GitCommandError(["cat-file", "--batch"], code, stderr || "the blob stream ended early");
}
