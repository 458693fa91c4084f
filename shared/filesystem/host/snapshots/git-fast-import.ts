/**
 * Writing one snapshot commit through `git fast-import`.
 *
 * Why fast-import rather than `add -A && commit`: it takes the parent commit and only the
 * changed paths (O(changes) trees and objects), it stores any path byte for byte — also
 * `.git/…`, `.GIT`, nested repositories' internals and option-like names, which the index
 * refuses or turns into gitlinks — and it runs no hooks, filters or attribute drivers.
 * With `--done`, a stream cut short (crash, kill) updates no ref.
 */
import { Buffer } from "node:buffer";
import { once } from "node:events";
import type { ChildProcessWithoutNullStreams } from "node:child_process";

import { cQuote } from "./byte-paths.js";
import { GitCommandError, type GitProcess } from "./git-process.js";

export interface CommitHeader {
  readonly ref: string;
  readonly message: string;
  /** Seconds since the epoch. */
  readonly time: number;
  readonly parent: string | null;
}

/** One fast-import process writing exactly one commit. */
export class FastImportWriter {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly stdoutChunks: Buffer[] = [];
  private stderr = "";
  private readonly exited: Promise<number | null>;
  private failure: Error | null = null;

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    child.stdout.on("data", (chunk: Buffer) => this.stdoutChunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      if (this.stderr.length < 64 * 1024) this.stderr += chunk.toString("utf8");
    });
    child.stdin.on("error", (error) => {
      this.failure ??= error;
    });
    this.exited = new Promise((resolve) => {
      child.on("error", (error) => {
        this.failure ??= error;
        resolve(null);
      });
      child.on("close", (code) => resolve(code));
    });
  }

  /** The fast-import process id (undefined when it could not start). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  static start(git: GitProcess): FastImportWriter {
    // --force: refs/wink/base moves back after a restore (not a fast-forward).
    return new FastImportWriter(git.spawn(["fast-import", "--quiet", "--done", "--force", "--date-format=raw"]));
  }

  private async write(data: Buffer | string): Promise<void> {
    if (this.failure) throw this.failure;
    const chunk = typeof data === "string" ? Buffer.from(data, "latin1") : data;
    if (!this.child.stdin.write(chunk)) {
      await Promise.race([once(this.child.stdin, "drain"), this.exited]);
      if (this.failure) throw this.failure;
    }
  }

  /** Start the commit; `parent` null makes a root commit with an empty tree. */
  async begin(header: CommitHeader): Promise<void> {
    const message = Buffer.from(header.message, "utf8");
    await this.write(`commit ${header.ref}\nmark :1\ncommitter WINK Snapshots <wink@localhost> ${Math.floor(header.time)} +0000\ndata ${message.length}\n`);
    await this.write(message);
    await this.write(header.parent === null ? "\n" : `\nfrom ${header.parent}\n`);
  }

  /** Drop every path (start the tree from empty while keeping the parent link). */
  async deleteAll(): Promise<void> {
    await this.write("deleteall\n");
  }

  async delete(bytePath: string): Promise<void> {
    await this.write(`D ${cQuote(bytePath)}\n`);
  }

  /** Set `bytePath` to `content` with a git mode ("100644", "100755", "120000"). */
  async modify(bytePath: string, gitMode: string, content: Buffer): Promise<void> {
    await this.write(`M ${gitMode} inline ${cQuote(bytePath)}\ndata ${content.length}\n`);
    await this.write(content);
    await this.write("\n");
  }

  /** Like `modify`, for content streamed by `feed` (exactly `size` bytes). */
  async modifyStreamed(bytePath: string, gitMode: string, size: number, feed: (sink: (chunk: Buffer) => Promise<void>) => Promise<void>): Promise<void> {
    await this.write(`M ${gitMode} inline ${cQuote(bytePath)}\ndata ${size}\n`);
    await feed((chunk) => this.write(chunk));
    await this.write("\n");
  }

  /** Finish the commit (also pointing `extraRefs` at it) and the stream; resolves with the new commit's id. */
  async finish(extraRefs: readonly string[] = []): Promise<string> {
    await this.write("\n");
    for (const ref of extraRefs) await this.write(`reset ${ref}\nfrom :1\n\n`);
    await this.write("get-mark :1\ndone\n");
    this.child.stdin.end();
    const code = await this.exited;
    const output = Buffer.concat(this.stdoutChunks).toString("latin1").trim();
    if (code !== 0 || !/^[0-9a-f]{40}$/.test(output)) {
      throw new GitCommandError(["fast-import"], code, this.stderr || this.failure?.message || output);
    }
    return output;
  }

  /** Kill the process; nothing is committed. */
  async abort(): Promise<void> {
    this.child.stdin.destroy();
    this.child.kill("SIGKILL");
    await this.exited;
  }
}
