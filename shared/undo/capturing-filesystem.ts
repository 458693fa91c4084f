/**
 * Auto-capture for every backend: a `Filesystem` decorator over the store's workspace that,
 * before each mutating call (write, writeBytes, delete, mkdir, openWrite, importArchive),
 * captures the pre-images the call is about to destroy into the open snapshot of the bound
 * tool call. Backends are never changed; reads pass straight through.
 *
 * The tool call comes from an explicit binding (`bind(toolCallId)`) or from a `ToolContext`
 * (`contextFor(context)`); with no tool call bound, calls run without capture.
 */
import type {
  ArchiveSummary,
  ByteReader,
  ByteWriter,
  DeleteOptions,
  ExportArchiveOptions,
  FileEntry,
  FileStat,
  Filesystem,
  GlobMatch,
  GlobOptions,
  GrepMatch,
  GrepOptions,
  ImportArchiveOptions,
  MkdirOptions,
  ReadBytesOptions,
  ReadBytesResult,
  ReadOptions,
  ReadResult,
  TextReader,
  WriteOptions,
  WriteResult,
} from "../filesystem/protocol.js";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.js";
import type { MutationIntent, UndoStore } from "./undo-store.node.js";

export interface CaptureBinding {
  readonly sessionId: string;
  /** The tool call whose snapshot receives pre-images; null/undefined: no capture. */
  readonly toolCallId?: string | null;
  /** Open a snapshot for a tool call on its first mutating call when none is registered (default true). */
  readonly autoRegister?: boolean;
  /** Turn of auto-registered snapshots (default: the session's current turn). */
  readonly turnId?: string | null;
}

/** A `Filesystem` that captures pre-images into an `UndoStore` before every mutation. */
export class CapturingFilesystem implements Filesystem {
  constructor(
    readonly store: UndoStore,
    readonly binding: CaptureBinding,
  ) {}

  /** The wrapped workspace. */
  get inner(): Filesystem {
    return this.store.workspace;
  }

  get root(): string {
    return this.inner.root;
  }

  get readOnly(): boolean {
    return this.inner.readOnly;
  }

  get mountPoint(): string | null {
    return this.inner.mountPoint;
  }

  /** The same wrapper bound to another tool call. */
  bind(toolCallId: string | null): CapturingFilesystem {
    return new CapturingFilesystem(this.store, { ...this.binding, toolCallId });
  }

  /** `context` with its filesystem replaced by this wrapper bound to `context.toolCallId` (and its session). */
  contextFor(context: ToolContext): ToolContext {
    const sessionId = context.sessionId ?? this.binding.sessionId;
    return { ...context, filesystem: new CapturingFilesystem(this.store, { ...this.binding, sessionId, toolCallId: context.toolCallId ?? null }) };
  }

  private mutate<T>(intent: MutationIntent, operation: () => Promise<T>): Promise<T> {
    const toolCallId = this.binding.toolCallId;
    if (toolCallId === null || toolCallId === undefined) return operation();
    return this.store.captureAround(this.binding.sessionId, toolCallId, intent, operation, {
      autoRegister: this.binding.autoRegister ?? true,
      ...(this.binding.turnId === undefined ? {} : { turnId: this.binding.turnId }),
    });
  }

  // Reads pass through.
  read(path: string, options?: ReadOptions): Promise<ReadResult> {
    return this.inner.read(path, options);
  }
  readBytes(path: string, options?: ReadBytesOptions): Promise<ReadBytesResult> {
    return this.inner.readBytes(path, options);
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
  stat(path: string): Promise<FileStat> {
    return this.inner.stat(path);
  }
  list(path?: string): Promise<FileEntry[]> {
    return this.inner.list(path);
  }
  glob(pattern: string, options?: GlobOptions): Promise<GlobMatch[]> {
    return this.inner.glob(pattern, options);
  }
  grep(pattern: string, options?: GrepOptions): Promise<GrepMatch[]> {
    return this.inner.grep(pattern, options);
  }
  openRead(path: string): Promise<ByteReader> {
    return this.inner.openRead(path);
  }
  openText(path: string, options?: { encoding?: string }): Promise<TextReader> {
    return this.inner.openText(path, options);
  }
  exportArchive(archivePath: string, options?: ExportArchiveOptions): Promise<ArchiveSummary> {
    return this.inner.exportArchive(archivePath, options);
  }

  // Mutations capture first.
  write(path: string, content: string, options?: WriteOptions): Promise<WriteResult> {
    return this.mutate({ kind: "write", path }, () => this.inner.write(path, content, options));
  }
  writeBytes(path: string, content: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    return this.mutate({ kind: "write", path }, () => this.inner.writeBytes(path, content, options));
  }
  delete(path: string, options?: DeleteOptions): Promise<void> {
    return this.mutate({ kind: "delete", path }, () => this.inner.delete(path, options));
  }
  mkdir(path: string, options?: MkdirOptions): Promise<void> {
    return this.mutate({ kind: "mkdir", path }, () => this.inner.mkdir(path, options));
  }
  /** The pre-image is captured when the writer opens (its bytes land on close). */
  openWrite(path: string, options?: WriteOptions): Promise<ByteWriter> {
    return this.mutate({ kind: "write", path }, () => this.inner.openWrite(path, options));
  }
  importArchive(archivePath: string, options?: ImportArchiveOptions): Promise<ArchiveSummary> {
    return this.mutate({ kind: "replace-all" }, () => this.inner.importArchive(archivePath, options));
  }

  toString(): string {
    return `CapturingFilesystem(${String(this.inner)}, session ${this.binding.sessionId}, tool call ${this.binding.toolCallId ?? "none"})`;
  }
}

export interface ToolCallOptions {
  readonly store: UndoStore;
  readonly sessionId: string;
  readonly toolCallId: string;
  /** Turn of the tool call's snapshot (default: the session's current turn). */
  readonly turnId?: string | null;
  readonly signal?: AbortSignal;
}

/**
 * Run one tool call with undo: a mutating tool gets an open snapshot for `toolCallId`, runs on
 * a capturing filesystem, and the snapshot is closed (post-images recorded) when it returns.
 * Read-only tools run on the workspace directly.
 */
export async function invokeToolWithUndo<V>(tool: ToolDefinition<V>, params: unknown, options: ToolCallOptions): Promise<ToolResult<V>> {
  const { store, sessionId, toolCallId } = options;
  const base = { sessionId, toolCallId, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  if (!tool.mutates) return tool.handler(params, { ...base, filesystem: store.workspace });
  await store.register(sessionId, toolCallId, options.turnId === undefined ? {} : { turnId: options.turnId });
  try {
    return await tool.handler(params, { ...base, filesystem: new CapturingFilesystem(store, { sessionId, toolCallId, autoRegister: false }) });
  } finally {
    await store.close(sessionId, toolCallId);
  }
}
