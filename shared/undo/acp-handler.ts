/**
 * The ACP (Agent Client Protocol) surface of the undo store, as a transport-agnostic
 * JSON-RPC 2.0 handler: give it parsed messages (or text lines), get responses back, and
 * receive `session/update` notifications through `notify`.
 *
 * Methods: `initialize` (advertises `agentCapabilities.sessionCapabilities`: the spec's
 * `close`, `list`, `resume`, `rollback`, `redo`, `restoreToolCall`),
 * `session/restore_tool_call {sessionId, toolCallId}`, `session/rollback {sessionId, turnId?}`,
 * `session/redo {sessionId}`, `session/close {sessionId}` (drops the session's snapshots),
 * `session/list {cwd?, cursor?}` (sessions with undo state, most recently active first, 100 a
 * page) and `session/resume {sessionId, cwd?}` (loads a session's undo state from disk, so a
 * new process restores what an earlier one captured; unknown sessions are resource-not-found).
 * A restore emits a `tool_call_update` with status "restored" and
 * `_meta.<namespace>.kind = "tool_call_restored"` plus `restoredPaths` — the namespace is
 * `wink` by default (harn's spec uses `harn`; set `metaNamespace` to match a client).
 * Errors are JSON-RPC errors; `data.code` carries our stable error code.
 */
import { WinkError } from "../errors.js";

export const JSON_RPC_VERSION = "2.0";
export const ACP_PROTOCOL_VERSION = 1;

/** JSON-RPC error codes: the standard ones plus ACP's resource-not-found and ours for a failed restore. */
export const JSON_RPC_ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  resourceNotFound: -32002,
  restoreFailed: -32010,
} as const;

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

export type JsonRpcResponse =
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly error: JsonRpcError };

export interface JsonRpcNotification {
  readonly jsonrpc: "2.0";
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The part of `UndoStore` the handler drives (so other stores can be served too). */
export interface UndoBackend {
  restore(sessionId: string, scopeId: string): Promise<{ readonly restoredPaths: readonly string[] }>;
  rollback(sessionId: string, options?: { turnId?: string }): Promise<TurnOutcome>;
  redo(sessionId: string): Promise<TurnOutcome>;
  dropSession(sessionId: string): Promise<void>;
  /** `session/list`: sessions with undo state (without it, `list` is not advertised). */
  listSessions?(): Promise<readonly { readonly sessionId: string; readonly snapshotCount: number; readonly updatedAt: string | null }[]>;
  /** `session/resume`: a session's snapshots, loaded from disk (without it, `resume` is not advertised). */
  list?(sessionId: string): Promise<readonly unknown[]>;
  /** The workspace the sessions work in: its root is their `cwd`. */
  readonly workspace?: { readonly root: string };
}

interface TurnOutcome {
  readonly turnIds: readonly string[];
  readonly toolCallIds: readonly string[];
  readonly restoredPaths: readonly string[];
  readonly toolCalls?: readonly { readonly toolCallId: string; readonly restoredPaths: readonly string[] }[];
}

export interface AcpUndoHandlerOptions {
  readonly store: UndoBackend;
  /** Receives `session/update` notifications (write them to the client). */
  readonly notify?: (notification: JsonRpcNotification) => void | Promise<void>;
  /** Key under `_meta` for our discriminator (default "wink"). */
  readonly metaNamespace?: string;
  readonly agentInfo?: { readonly name: string; readonly version: string };
}

/** Sessions per `session/list` page. */
const SESSIONS_PER_PAGE = 100;

/**
 * The `sessionCapabilities` this handler serves, to merge into an agent's own `initialize`
 * result: the spec's six, `list` and `resume` when the store can list and load sessions.
 */
export function undoSessionCapabilities(store?: UndoBackend): Record<string, Record<string, never>> {
  const canList = store === undefined || typeof store.listSessions === "function";
  const canResume = store === undefined || typeof store.list === "function";
  return { close: {}, ...(canList ? { list: {} } : {}), ...(canResume ? { resume: {} } : {}), rollback: {}, redo: {}, restoreToolCall: {} };
}

class RpcFailure extends Error {
  constructor(readonly error: JsonRpcError) {
    super(error.message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function invalidParams(message: string): RpcFailure {
  return new RpcFailure({ code: JSON_RPC_ERROR_CODES.invalidParams, message });
}

function requireString(params: Record<string, unknown>, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== "string" || value === "") throw invalidParams(`${method}: "${key}" must be a non-empty string`);
  return value;
}

function optionalString(params: Record<string, unknown>, key: string, method: string): string | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value === "") throw invalidParams(`${method}: "${key}" must be a non-empty string when given`);
  return value;
}

/** Map a thrown error to a JSON-RPC error: our codes travel in `data.code`. */
export function toJsonRpcError(error: unknown): JsonRpcError {
  if (error instanceof RpcFailure) return error.error;
  if (error instanceof WinkError) {
    const data = { ...error.data, code: error.code };
    if (error.code === "E_SNAPSHOT_NOT_FOUND") return { code: JSON_RPC_ERROR_CODES.resourceNotFound, message: error.message, data };
    if (error.code === "EINVAL") return { code: JSON_RPC_ERROR_CODES.invalidParams, message: error.message, data };
    if (error.code.startsWith("E_SNAPSHOT")) return { code: JSON_RPC_ERROR_CODES.restoreFailed, message: error.message, data };
    return { code: JSON_RPC_ERROR_CODES.internalError, message: error.message, data };
  }
  return { code: JSON_RPC_ERROR_CODES.internalError, message: `Internal error: ${error instanceof Error ? error.message : String(error)}` };
}

/** Serves the undo store's ACP methods over any JSON-RPC transport. */
export class AcpUndoHandler {
  private readonly metaNamespace: string;

  constructor(private readonly options: AcpUndoHandlerOptions) {
    this.metaNamespace = options.metaNamespace ?? "wink";
  }

  /** Handle one line of text (a JSON-RPC message or batch); the response text, or null when none is due. */
  async handleText(text: string): Promise<string | null> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      const response: JsonRpcResponse = {
        jsonrpc: JSON_RPC_VERSION,
        id: null,
        error: { code: JSON_RPC_ERROR_CODES.parseError, message: `Parse error: ${error instanceof Error ? error.message : String(error)}` },
      };
      return JSON.stringify(response);
    }
    const response = await this.handle(message);
    return response === null ? null : JSON.stringify(response);
  }

  /** Handle a parsed message or batch. Returns null for notifications and for responses sent to us. */
  async handle(message: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | null> {
    if (Array.isArray(message)) {
      if (message.length === 0) return this.errorResponse(null, { code: JSON_RPC_ERROR_CODES.invalidRequest, message: "Invalid request: empty batch" });
      const responses: JsonRpcResponse[] = [];
      for (const item of message) {
        const response = await this.handleOne(item);
        if (response !== null) responses.push(response);
      }
      return responses.length === 0 ? null : responses;
    }
    return this.handleOne(message);
  }

  private errorResponse(id: JsonRpcId, error: JsonRpcError): JsonRpcResponse {
    return { jsonrpc: JSON_RPC_VERSION, id, error };
  }

  private async handleOne(message: unknown): Promise<JsonRpcResponse | null> {
    if (!isObject(message) || message.jsonrpc !== JSON_RPC_VERSION) {
      const id = isObject(message) && isId(message.id) ? message.id : null;
      return this.errorResponse(id, { code: JSON_RPC_ERROR_CODES.invalidRequest, message: 'Invalid request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0"' });
    }
    const hasId = Object.prototype.hasOwnProperty.call(message, "id");
    if (typeof message.method !== "string") {
      // A response from the client (to a request we never send) needs no answer.
      if (hasId && ("result" in message || "error" in message)) return null;
      return this.errorResponse(isId(message.id) ? message.id : null, { code: JSON_RPC_ERROR_CODES.invalidRequest, message: 'Invalid request: "method" must be a string' });
    }
    if (hasId && !isId(message.id)) {
      return this.errorResponse(null, { code: JSON_RPC_ERROR_CODES.invalidRequest, message: 'Invalid request: "id" must be a string, a number or null' });
    }
    const params = message.params ?? {};
    try {
      if (!isObject(params)) throw invalidParams(`${message.method}: "params" must be an object`);
      const result = await this.dispatch(message.method, params);
      return hasId ? { jsonrpc: JSON_RPC_VERSION, id: message.id as JsonRpcId, result } : null;
    } catch (error) {
      return hasId ? this.errorResponse(message.id as JsonRpcId, toJsonRpcError(error)) : null;
    }
  }

  private async dispatch(method: string, params: Record<string, unknown>): Promise<unknown> {
    const store = this.options.store;
    switch (method) {
      case "initialize":
        return {
          protocolVersion: ACP_PROTOCOL_VERSION,
          agentCapabilities: { sessionCapabilities: undoSessionCapabilities(store) },
          authMethods: [],
          ...(this.options.agentInfo === undefined ? {} : { agentInfo: this.options.agentInfo }),
        };
      case "session/restore_tool_call": {
        const sessionId = requireString(params, "sessionId", method);
        const toolCallId = requireString(params, "toolCallId", method);
        const { restoredPaths } = await store.restore(sessionId, toolCallId);
        await this.toolCallUpdate(sessionId, toolCallId, "restored", "tool_call_restored", restoredPaths);
        return { restoredPaths };
      }
      case "session/rollback": {
        const sessionId = requireString(params, "sessionId", method);
        const turnId = optionalString(params, "turnId", method);
        const outcome = await store.rollback(sessionId, turnId === undefined ? {} : { turnId });
        for (const call of outcome.toolCalls ?? []) await this.toolCallUpdate(sessionId, call.toolCallId, "restored", "tool_call_restored", call.restoredPaths);
        return { turnIds: outcome.turnIds, toolCallIds: outcome.toolCallIds, restoredPaths: outcome.restoredPaths };
      }
      case "session/redo": {
        const sessionId = requireString(params, "sessionId", method);
        const outcome = await store.redo(sessionId);
        for (const call of outcome.toolCalls ?? []) await this.toolCallUpdate(sessionId, call.toolCallId, "completed", "tool_call_redone", call.restoredPaths);
        return { turnIds: outcome.turnIds, toolCallIds: outcome.toolCallIds, restoredPaths: outcome.restoredPaths };
      }
      case "session/close": {
        await store.dropSession(requireString(params, "sessionId", method));
        return {};
      }
      case "session/list": {
        if (store.listSessions === undefined) break;
        const cwd = optionalString(params, "cwd", method);
        const cursor = optionalString(params, "cursor", method);
        const start = cursor === undefined ? 0 : Number(cursor);
        if (!Number.isSafeInteger(start) || start < 0) throw invalidParams(`${method}: "cursor" is not one this agent gave out`);
        const root = store.workspace?.root ?? null;
        const all = cwd !== undefined && root !== null && cwd !== root ? [] : await store.listSessions();
        const page = all.slice(start, start + SESSIONS_PER_PAGE).map((session) => ({
          sessionId: session.sessionId,
          ...(root === null ? {} : { cwd: root }),
          ...(session.updatedAt === null ? {} : { updatedAt: session.updatedAt }),
          _meta: { [this.metaNamespace]: { snapshotCount: session.snapshotCount } },
        }));
        return { sessions: page, ...(start + SESSIONS_PER_PAGE < all.length ? { nextCursor: String(start + SESSIONS_PER_PAGE) } : {}) };
      }
      case "session/resume": {
        if (store.list === undefined) break;
        const sessionId = requireString(params, "sessionId", method);
        optionalString(params, "cwd", method);
        if ((await store.list(sessionId)).length === 0) {
          throw new RpcFailure({ code: JSON_RPC_ERROR_CODES.resourceNotFound, message: `Unknown session: ${sessionId} has no undo state here`, data: { sessionId } });
        }
        return {};
      }
      default:
        break;
    }
    throw new RpcFailure({ code: JSON_RPC_ERROR_CODES.methodNotFound, message: `Method not found: ${method}` });
  }

  private async toolCallUpdate(sessionId: string, toolCallId: string, status: string, kind: string, restoredPaths: readonly string[]): Promise<void> {
    await this.options.notify?.({
      jsonrpc: JSON_RPC_VERSION,
      method: "session/update",
      params: {
        sessionId,
        update: { sessionUpdate: "tool_call_update", toolCallId, status, _meta: { [this.metaNamespace]: { kind, restoredPaths: [...restoredPaths] } } },
      },
    });
  }
}
