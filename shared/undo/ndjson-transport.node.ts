/**
 * Newline-delimited JSON-RPC over a pair of streams (ACP's stdio transport): one message per
 * line in each direction. Lines are handled one at a time, in order; a line longer than the
 * cap is answered with a parse error and skipped, so a client cannot exhaust memory.
 */
import type { Readable, Writable } from "node:stream";
import type { AcpUndoHandlerOptions } from "./acp-handler.js";
import { AcpUndoHandler, JSON_RPC_ERROR_CODES, JSON_RPC_VERSION } from "./acp-handler.js";

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface NdjsonConnectionOptions {
  readonly input: Readable;
  readonly output: Writable;
  readonly maxLineBytes?: number;
}

/** One side of a newline-delimited JSON connection. */
export class NdjsonConnection {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxLineBytes: number;
  private writing: Promise<void> = Promise.resolve();

  constructor(options: NdjsonConnectionOptions) {
    this.input = options.input;
    this.output = options.output;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Send one message (serialised, one line). Writes are queued and respect back-pressure. */
  send(message: unknown): Promise<void> {
    return this.sendLine(JSON.stringify(message));
  }

  private sendLine(text: string): Promise<void> {
    const line = `${text}\n`;
    this.writing = this.writing.then(
      () =>
        new Promise<void>((resolve, reject) => {
          if (this.output.destroyed || this.output.writableEnded) {
            resolve(); // the peer is gone: nothing to deliver to
            return;
          }
          this.output.write(line, (error) => (error ? reject(error) : resolve()));
        }),
    );
    return this.writing;
  }

  private refuseLongLine(): Promise<void> {
    return this.send({ jsonrpc: JSON_RPC_VERSION, id: null, error: { code: JSON_RPC_ERROR_CODES.parseError, message: `Parse error: message longer than ${this.maxLineBytes} bytes` } });
  }

  /**
   * Read lines until the input ends, handing each to `onLine` in order; a non-null result is
   * sent back as a line. Resolves when the input has ended and every reply is written.
   */
  async serve(onLine: (line: string) => Promise<string | null>): Promise<void> {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let skipping = false;
    const decoder = new TextDecoder("utf-8");
    const reply = async (text: string | null): Promise<void> => {
      if (text !== null) await this.sendLine(text);
    };
    for await (const chunk of this.input) {
      let buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      for (let newline = buffer.indexOf(0x0a); newline !== -1; newline = buffer.indexOf(0x0a)) {
        const head = buffer.subarray(0, newline);
        buffer = buffer.subarray(newline + 1);
        if (skipping) {
          skipping = false;
          continue;
        }
        const tooLong = pendingBytes + head.length > this.maxLineBytes;
        const line = tooLong ? "" : decoder.decode(Buffer.concat([...pending, head])).replace(/\r$/, "");
        pending = [];
        pendingBytes = 0;
        if (tooLong) await this.refuseLongLine();
        else if (line.trim() !== "") await reply(await onLine(line));
      }
      if (skipping) continue;
      pending.push(buffer);
      pendingBytes += buffer.length;
      if (pendingBytes > this.maxLineBytes) {
        pending = [];
        pendingBytes = 0;
        skipping = true;
        await this.refuseLongLine();
      }
    }
    const rest = decoder.decode(Buffer.concat(pending));
    if (!skipping && rest.trim() !== "") await reply(await onLine(rest));
    await this.writing;
  }
}

export interface AcpStdioOptions extends Omit<AcpUndoHandlerOptions, "notify"> {
  /** Default: process.stdin. */
  readonly input?: Readable;
  /** Default: process.stdout. */
  readonly output?: Writable;
  readonly maxLineBytes?: number;
}

/** Serve the undo store's ACP methods over stdio (or the given streams) until the input ends. */
export async function serveAcpUndoStdio(options: AcpStdioOptions): Promise<void> {
  const connection = new NdjsonConnection({
    input: options.input ?? process.stdin,
    output: options.output ?? process.stdout,
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
  });
  const handler = new AcpUndoHandler({ ...options, notify: (notification) => connection.send(notification) });
  await connection.serve((line) => handler.handleText(line));
}
