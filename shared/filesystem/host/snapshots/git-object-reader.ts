/**
 * One `git cat-file --batch` process answering object requests in order: refs and commit
 * ids resolve to commits, trees are parsed, blobs go to a sink. A restore needs the
 * snapshot's ref, its commit, the trees that differ and the changed blobs — all through
 * this one process instead of a git invocation each.
 */
import { Buffer } from "node:buffer";
import type { ChildProcess, ChildProcessWithoutNullStreams } from "node:child_process";

import { GitCommandError, type GitProcess } from "./git-process.js";

export interface GitObject {
  readonly oid: string;
  readonly type: string;
  readonly content: Buffer;
}

export interface ObjectSink {
  write(chunk: Uint8Array): Promise<void> | void;
  close(): Promise<void> | void;
}

/** A requested object is not in the repository. */
export class MissingObjectError extends Error {
  constructor(readonly name_: string) {
    super(`object ${name_} is missing from the snapshot repository`);
    this.name = "MissingObjectError";
  }
}

/** An entry of a tree object. */
export interface TreeEntry {
  readonly name: string;
  readonly mode: string;
  readonly oid: string;
}

/** The end of the tree entry at `at` (`<mode> <name>\0<20-byte id>`), and of its mode and name. */
function entryBounds(content: Buffer, at: number): { space: number; nul: number; end: number } {
  const space = content.indexOf(0x20, at);
  const nul = space < 0 ? -1 : content.indexOf(0, space);
  if (space < 0 || nul < 0 || nul + 21 > content.length) throw new Error("malformed tree object");
  return { space, nul, end: nul + 21 };
}

function entryAt(content: Buffer, at: number, space: number, nul: number): TreeEntry {
  const mode = content.toString("latin1", at, space);
  return { mode: mode.length === 5 ? `0${mode}` : mode, name: content.toString("latin1", space + 1, nul), oid: content.toString("hex", nul + 1, nul + 21) };
}

/** Parse a binary tree object: `<mode> <name>\0<20-byte id>` repeated. Names stay byte strings. */
export function parseTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let at = 0; at < content.length; ) {
    const { space, nul, end } = entryBounds(content, at);
    entries.push(entryAt(content, at, space, nul));
    at = end;
  }
  return entries;
}

/**
 * The entries that differ between two tree objects whose names are the same, in the same
 * order (the common case of a snapshot: files changed, none added or removed here), as
 * [entry, old entry] pairs; null when the names differ (the caller compares by name). An
 * entry that is byte for byte the same is skipped without a string made: a restore reads
 * the trees along every changed path, and most of their entries did not change.
 */
export function changedTreeEntries(content: Buffer, base: Buffer): [TreeEntry, TreeEntry][] | null {
  const changed: [TreeEntry, TreeEntry][] = [];
  let at = 0;
  let baseAt = 0;
  while (at < content.length && baseAt < base.length) {
    const mine = entryBounds(content, at);
    const theirs = entryBounds(base, baseAt);
    const same = mine.end - at === theirs.end - baseAt && content.compare(base, baseAt, theirs.end, at, mine.end) === 0;
    if (!same) {
      // The same name (the bytes after the mode, up to the NUL), with another mode or id.
      if (mine.nul - mine.space !== theirs.nul - theirs.space || content.compare(base, theirs.space, theirs.nul, mine.space, mine.nul) !== 0) return null;
      changed.push([entryAt(content, at, mine.space, mine.nul), entryAt(base, baseAt, theirs.space, theirs.nul)]);
    }
    at = mine.end;
    baseAt = theirs.end;
  }
  return at === content.length && baseAt === base.length ? changed : null;
}

interface Pending {
  readonly name: string;
  /** Where the content goes; null: buffer it. */
  readonly open: ((size: number, type: string) => Promise<ObjectSink> | ObjectSink) | null;
  readonly resolve: (value: GitObject | null) => void;
  readonly reject: (error: unknown) => void;
}

export class GitObjectReader {
  /** The git arguments of the process. */
  static readonly ARGS: readonly string[] = ["cat-file", "--batch"];
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly queue: Pending[] = [];
  private stderr = "";
  private failure: Error | null = null;
  private readonly done: Promise<void>;

  /** `child`: a `cat-file --batch` already started (with piped stdin, stdout and stderr); default: started here. */
  constructor(git: GitProcess, child?: ChildProcess) {
    this.child = (child ?? git.spawn(GitObjectReader.ARGS)) as ChildProcessWithoutNullStreams;
    this.child.stderr.on("data", (chunk: Buffer) => {
      if (this.stderr.length < 16 * 1024) this.stderr += chunk.toString("utf8");
    });
    this.child.stdin.on("error", (error) => this.fail(error));
    this.child.on("error", (error) => this.fail(error));
    this.done = this.consume().catch((error: unknown) => this.fail(error));
  }

  private fail(error: unknown): void {
    this.failure ??= error instanceof Error ? error : new Error(String(error));
    for (const pending of this.queue.splice(0)) pending.reject(new GitCommandError(["cat-file", "--batch"], null, this.stderr || this.failure.message));
  }

  private request(name: string, open: Pending["open"]): Promise<GitObject | null> {
    if (this.failure) return Promise.reject(this.failure);
    if (/[\n\0]/.test(name)) return Promise.reject(new Error(`invalid object name ${JSON.stringify(name)}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ name, open, resolve, reject });
      this.child.stdin.write(`${name}\n`, "latin1");
    });
  }

  /** The object `name` (an id, a ref, `<commit>^{tree}`…), or null when it does not exist. */
  read(name: string): Promise<GitObject | null> {
    return this.request(name, null);
  }

  /** Stream object `name` into the sink `open` returns; rejects with MissingObjectError when it does not exist. */
  async stream(name: string, open: (size: number, type: string) => Promise<ObjectSink> | ObjectSink): Promise<void> {
    if ((await this.request(name, open)) === null) throw new MissingObjectError(name);
  }

  /** A tree's entries; MissingObjectError when it is missing or not a tree. */
  async tree(oid: string): Promise<TreeEntry[]> {
    return parseTree(await this.treeContent(oid));
  }

  /** A tree object's raw content (see `parseTree`). */
  async treeContent(oid: string): Promise<Buffer> {
    const object = await this.read(oid);
    if (object === null || object.type !== "tree") throw new MissingObjectError(oid);
    return object.content;
  }

  private async consume(): Promise<void> {
    let buffer: Buffer = Buffer.alloc(0);
    let current: { pending: Pending; oid: string; type: string; remaining: number; sink: ObjectSink | null; parts: Buffer[]; error: unknown } | null = null;
    for await (const data of this.child.stdout as AsyncIterable<Buffer>) {
      buffer = buffer.length === 0 ? data : Buffer.concat([buffer, data]);
      for (;;) {
        if (current === null) {
          const newline = buffer.indexOf(0x0a);
          if (newline < 0) break;
          const header = buffer.toString("latin1", 0, newline);
          buffer = buffer.subarray(newline + 1);
          const pending = this.queue.shift();
          if (pending === undefined) throw new Error(`unexpected cat-file output: ${header}`);
          const match = /^([0-9a-f]{40,64}) (\S+) (\d+)$/.exec(header);
          if (match === null) {
            pending.resolve(null); // "<name> missing" / "ambiguous"
            continue;
          }
          const size = Number(match[3]);
          current = { pending, oid: match[1] as string, type: match[2] as string, remaining: size, sink: null, parts: [], error: undefined };
          if (pending.open !== null) {
            try {
              current.sink = await pending.open(size, current.type);
            } catch (error) {
              current.error = error ?? new Error("sink failed");
            }
          }
        }
        if (current.remaining > 0) {
          if (buffer.length === 0) break;
          const take = buffer.subarray(0, Math.min(current.remaining, buffer.length));
          buffer = buffer.subarray(take.length);
          current.remaining -= take.length;
          // After a sink error the rest of the object is read and dropped, keeping the stream in step.
          if (current.error !== undefined) continue;
          if (current.sink === null) current.parts.push(take);
          else {
            try {
              await current.sink.write(take);
            } catch (error) {
              current.error = error ?? new Error("sink failed");
            }
          }
          continue;
        }
        if (buffer.length === 0) break; // the LF after the content has not arrived yet
        buffer = buffer.subarray(1);
        const finished = current;
        current = null;
        try {
          if (finished.error !== undefined) throw finished.error;
          if (finished.sink !== null) await finished.sink.close();
          finished.pending.resolve({ oid: finished.oid, type: finished.type, content: Buffer.concat(finished.parts) });
        } catch (error) {
          finished.pending.reject(error);
        }
      }
    }
    if (this.queue.length > 0) throw new Error("cat-file ended early");
  }

  /** End the process (pending requests are answered first). */
  async close(): Promise<void> {
    this.child.stdin.end();
    await this.done;
  }

  /** Kill the process now. */
  destroy(): void {
    this.child.kill("SIGKILL");
  }
}
