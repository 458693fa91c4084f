/**
 * How exec-backend requests reach the helper script in the container.
 *
 * - `session` (default): one long-lived `podman exec -i … serve` per filesystem; requests
 *   are queued and framed on its stdin (see `exec-helper-script.ts`). A `podman exec`
 *   costs ~150–250 ms here, a request in a session a few milliseconds. The session is
 *   restarted after any failure, and only keeps the Node process alive while a request is
 *   in flight.
 * - `per-call`: one `podman exec` per request, arguments as argv elements and the payload on
 *   stdin. Slower; nothing survives between requests.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { BackendUnavailableError, InvalidArgumentError, OperationTimeoutError } from "../../errors.js";
import { EXEC_HELPER_SCRIPT } from "./exec-helper-script.js";
import { ExecProtocolError, ResponseParser, type ExecResponse } from "./exec-protocol.js";
import { stderrExcerpt, type Podman } from "./podman-cli.js";
import { CappedBuffer } from "./process.js";

export type ExecTransportKind = "session" | "per-call";

export interface ExecPayload {
  readonly size: number;
  /** The bytes, or a function producing exactly `size` bytes in chunks. */
  readonly source: Uint8Array | (() => AsyncIterable<Uint8Array>);
}

export interface ExecRequest {
  readonly op: string;
  readonly args: readonly string[];
  readonly payload?: ExecPayload;
}

export interface ExecTransport {
  readonly kind: ExecTransportKind;
  request(request: ExecRequest): Promise<ExecResponse>;
  close(): Promise<void>;
}

export interface ExecTarget {
  readonly podman: Podman;
  /** Container id or name. */
  readonly container: string;
  /** Writable directory in the container for the helper's scratch files. */
  readonly tempDir: string;
  /** Fail a request (and restart the session) after this long. */
  readonly requestTimeoutMs: number;
}

type Unrefable = { ref?: () => void; unref?: () => void };

function setRef(child: ChildProcessWithoutNullStreams, on: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as Unrefable[]) {
    if (on) handle.ref?.();
    else handle.unref?.();
  }
}

function checkArgs(request: ExecRequest, allowNewline: boolean): void {
  for (const arg of request.args) {
    if (arg.includes("\u0000") || (!allowNewline && arg.includes("\n"))) {
      throw new InvalidArgumentError(`Cannot pass ${JSON.stringify(arg.slice(0, 80))} to the container: NUL and newline characters cannot be addressed`, { op: request.op });
    }
  }
}

async function* payloadChunks(payload: ExecPayload): AsyncIterable<Uint8Array> {
  if (payload.source instanceof Uint8Array) {
    yield payload.source;
    return;
  }
  yield* payload.source();
}

/** Write to a child's stdin, waiting for drain; rejects if the pipe closes first. */
function writeChunk(child: ChildProcessWithoutNullStreams, data: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const stdin = child.stdin;
    if (stdin.destroyed || stdin.writableEnded) {
      reject(new BackendUnavailableError("The exec session's stdin is closed"));
      return;
    }
    const onClose = (): void => {
      cleanup();
      reject(new BackendUnavailableError("The exec session ended while a request was being sent"));
    };
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const cleanup = (): void => {
      stdin.off("close", onClose);
      stdin.off("drain", onDrain);
    };
    stdin.on("close", onClose);
    if (stdin.write(data)) {
      cleanup();
      resolve();
    } else {
      stdin.on("drain", onDrain);
    }
  });
}

/** Send a payload, refusing to write more or fewer bytes than announced. */
async function sendPayload(child: ChildProcessWithoutNullStreams, payload: ExecPayload): Promise<void> {
  let sent = 0;
  for await (const chunk of payloadChunks(payload)) {
    if (sent + chunk.length > payload.size) throw new BackendUnavailableError(`Payload larger than announced (${payload.size} bytes)`);
    if (chunk.length > 0) await writeChunk(child, chunk);
    sent += chunk.length;
  }
  if (sent !== payload.size) throw new BackendUnavailableError(`Payload shorter than announced: ${sent} of ${payload.size} bytes`);
}

interface InFlight {
  resolve(response: ExecResponse): void;
  reject(error: unknown): void;
}

/** A long-lived helper session; requests are serialised. */
export class SessionTransport implements ExecTransport {
  readonly kind = "session";
  private child: ChildProcessWithoutNullStreams | null = null;
  private nonce = "";
  private parser = new ResponseParser();
  private stderr = new CappedBuffer(16 * 1024);
  private current: InFlight | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly target: ExecTarget) {}

  request(request: ExecRequest): Promise<ExecResponse> {
    const run = this.tail.then(() => this.exchange(request));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async start(): Promise<ChildProcessWithoutNullStreams> {
    const { podman, container, tempDir } = this.target;
    const child = await podman.spawn(["exec", "--interactive", container, "/bin/sh", "-c", EXEC_HELPER_SCRIPT, "wink-exec", "serve", tempDir]);
    this.child = child;
    this.nonce = randomBytes(16).toString("hex");
    this.parser = new ResponseParser();
    this.stderr = new CappedBuffer(16 * 1024);
    child.stdin.on("error", () => undefined);
    child.stdout.on("data", (data: Buffer) => {
      if (this.child !== child) return;
      let responses: ExecResponse[];
      try {
        responses = this.parser.push(data);
      } catch (error) {
        this.abandon(child, error instanceof ExecProtocolError ? new BackendUnavailableError(error.message) : error);
        return;
      }
      for (const response of responses) {
        const waiting = this.current;
        if (waiting === null) {
          this.abandon(child, new BackendUnavailableError("The exec helper answered a request that was not made"));
          return;
        }
        this.current = null;
        waiting.resolve(response);
      }
    });
    child.stderr.on("data", (data: Buffer) => this.stderr.push(data));
    child.on("close", (code) => {
      if (this.child !== child) return;
      const detail = stderrExcerpt(this.stderr.toBuffer());
      this.abandon(child, new BackendUnavailableError(`The exec session in container ${container} ended (exit ${code ?? "signal"})${detail ? `: ${detail}` : ""}`, { container }));
    });
    await writeChunk(child, Buffer.from(`${this.nonce}\n`));
    setRef(child, false);
    return child;
  }

  /** Drop a session: the request in flight fails, the next request starts a new session. */
  private abandon(child: ChildProcessWithoutNullStreams, error: unknown): void {
    if (this.child === child) this.child = null;
    child.kill("SIGKILL");
    const waiting = this.current;
    this.current = null;
    waiting?.reject(error);
  }

  private async exchange(request: ExecRequest): Promise<ExecResponse> {
    if (this.closed) throw new BackendUnavailableError("The exec filesystem is closed");
    checkArgs(request, false);
    const child = this.child ?? (await this.start());
    setRef(child, true);
    const response = new Promise<ExecResponse>((resolve, reject) => {
      this.current = { resolve, reject };
    });
    response.catch(() => undefined);
    const timer = setTimeout(() => {
      this.abandon(child, new OperationTimeoutError(`Container request ${request.op} took longer than ${this.target.requestTimeoutMs} ms`, { op: request.op }));
    }, this.target.requestTimeoutMs);
    try {
      const header = `${this.nonce}\n${request.op}\n${request.args.length}\n${request.args.map((arg) => `${arg}\n`).join("")}`;
      const sending = (async () => {
        await writeChunk(child, Buffer.from(header, "utf8"));
        if (request.payload !== undefined) await sendPayload(child, request.payload);
      })();
      sending.catch((error: unknown) => this.abandon(child, error));
      const result = await response;
      // The helper may answer before it has read the whole payload (and then exit): the
      // answer stands, and the next request must not share the pipe with what is left.
      await sending.catch(() => undefined);
      return result;
    } finally {
      clearTimeout(timer);
      if (this.child === child) setRef(child, false);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
    const child = this.child;
    this.child = null;
    if (child === null) return;
    setRef(child, true);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      child.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      if (child.exitCode !== null || child.signalCode !== null) {
        clearTimeout(timer);
        resolve();
        return;
      }
      child.stdin.end();
    });
  }
}

/** One `podman exec` per request. */
export class PerCallTransport implements ExecTransport {
  readonly kind = "per-call";

  constructor(private readonly target: ExecTarget) {}

  async request(request: ExecRequest): Promise<ExecResponse> {
    checkArgs(request, true);
    const { podman, container, tempDir } = this.target;
    const child = await podman.spawn(["exec", "--interactive", container, "/bin/sh", "-c", EXEC_HELPER_SCRIPT, "wink-exec", "call", tempDir, request.op, ...request.args]);
    const parser = new ResponseParser();
    const stderr = new CappedBuffer(16 * 1024);
    const responses: ExecResponse[] = [];
    let protocolError: unknown = null;
    child.stdin.on("error", () => undefined);
    child.stdout.on("data", (data: Buffer) => {
      try {
        responses.push(...parser.push(data));
      } catch (error) {
        protocolError ??= error;
        child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (data: Buffer) => stderr.push(data));
    const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, this.target.requestTimeoutMs);
    try {
      if (request.payload !== undefined) await sendPayload(child, request.payload).catch(() => undefined);
      child.stdin.end();
      const code = await closed;
      if (timedOut) throw new OperationTimeoutError(`Container request ${request.op} took longer than ${this.target.requestTimeoutMs} ms`, { op: request.op });
      const response = responses[0];
      if (protocolError !== null || response === undefined || responses.length !== 1) {
        const detail = stderrExcerpt(stderr.toBuffer()) || (protocolError instanceof Error ? protocolError.message : `exit ${code}`);
        throw new BackendUnavailableError(`Container request ${request.op} in ${container} failed: ${detail}`, { container });
      }
      return response;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    // Nothing is kept between requests.
  }
}

export function createExecTransport(kind: ExecTransportKind, target: ExecTarget): ExecTransport {
  return kind === "per-call" ? new PerCallTransport(target) : new SessionTransport(target);
}
