import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import { editFileTool, writeFileTool } from "../tools/index.js";
import type { JsonRpcNotification } from "./acp-handler.js";
import { AcpUndoHandler, JSON_RPC_ERROR_CODES } from "./acp-handler.js";
import { invokeToolWithUndo } from "./capturing-filesystem.js";
import { NdjsonConnection, serveAcpUndoStdio } from "./ndjson-transport.node.js";
import { UndoStore } from "./undo-store.node.js";

const CLIENT = fileURLToPath(new URL("./acp-client.test-support.mjs", import.meta.url));
const S = "sess_abc";
let fs: InMemoryFilesystem;
let store: UndoStore;
let stateDir: string;

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "wink-acp-"));
  fs = new InMemoryFilesystem();
  await fs.write("src/lib.rs", "fn main() {}\n");
  store = await UndoStore.create({ workspace: fs, stateDir });
  await store.beginTurn(S, "turn-1");
  await invokeToolWithUndo(editFileTool, { file_path: "src/lib.rs", old_string: "main", new_string: "run" }, { store, sessionId: S, toolCallId: "tc_41" });
  await store.beginTurn(S, "turn-2");
  await invokeToolWithUndo(writeFileTool, { file_path: "notes/plan.md", content: "plan\n" }, { store, sessionId: S, toolCallId: "tc_42" });
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("AcpUndoHandler", () => {
  it("advertises the session capabilities in initialize", async () => {
    const handler = new AcpUndoHandler({ store, agentInfo: { name: "wink-debug", version: "0.1.0" } });
    expect(await handler.handle({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } })).toEqual({
      jsonrpc: "2.0",
      id: 0,
      result: {
        protocolVersion: 1,
        // The spec's list (per-tool-call-snapshots.md, "ACP surface"), all six.
        agentCapabilities: { sessionCapabilities: { close: {}, list: {}, resume: {}, rollback: {}, redo: {}, restoreToolCall: {} } },
        authMethods: [],
        agentInfo: { name: "wink-debug", version: "0.1.0" },
      },
    });
  });

  it("advertises list and resume only for stores that can list and load sessions", async () => {
    const minimal = { restore: store.restore.bind(store), rollback: store.rollback.bind(store), redo: store.redo.bind(store), dropSession: store.dropSession.bind(store) };
    const handler = new AcpUndoHandler({ store: minimal });
    expect(await handler.handle({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} })).toMatchObject({ result: { agentCapabilities: { sessionCapabilities: { close: {}, rollback: {}, redo: {}, restoreToolCall: {} } } } });
    expect(Object.keys(((await handler.handle({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} })) as { result: { agentCapabilities: { sessionCapabilities: object } } }).result.agentCapabilities.sessionCapabilities)).not.toContain("list");
    expect(await handler.handle({ jsonrpc: "2.0", id: 1, method: "session/list", params: {} })).toMatchObject({ error: { code: JSON_RPC_ERROR_CODES.methodNotFound } });
  });

  it("lists sessions with undo state (session/list), filtered by cwd and paged by cursor", async () => {
    await store.beginTurn("sess_other", "t");
    await invokeToolWithUndo(writeFileTool, { file_path: "other.txt", content: "o" }, { store, sessionId: "sess_other", toolCallId: "tc_1" });
    const handler = new AcpUndoHandler({ store });
    const listed = await handler.handle({ jsonrpc: "2.0", id: 1, method: "session/list", params: {} });
    expect(listed).toMatchObject({ id: 1, result: { sessions: [{ sessionId: "sess_other", cwd: "/" }, { sessionId: S, cwd: "/", _meta: { wink: { snapshotCount: 2 } } }] } });
    const sessions = (listed as { result: { sessions: { updatedAt: string }[]; nextCursor?: string } }).result;
    expect(sessions.nextCursor).toBeUndefined();
    expect(Number.isNaN(Date.parse(sessions.sessions[0]?.updatedAt ?? ""))).toBe(false);
    expect(await handler.handle({ jsonrpc: "2.0", id: 2, method: "session/list", params: { cwd: "/elsewhere" } })).toEqual({ jsonrpc: "2.0", id: 2, result: { sessions: [] } });
    expect(await handler.handle({ jsonrpc: "2.0", id: 3, method: "session/list", params: { cursor: "1" } })).toMatchObject({ result: { sessions: [{ sessionId: S }] } });
    expect(await handler.handle({ jsonrpc: "2.0", id: 4, method: "session/list", params: { cursor: "x" } })).toMatchObject({ error: { code: JSON_RPC_ERROR_CODES.invalidParams } });
  });

  it("resumes a session in a new process from its state on disk (session/resume), refusing unknown ones", async () => {
    const later = await UndoStore.create({ workspace: fs, stateDir });
    const handler = new AcpUndoHandler({ store: later });
    expect(await handler.handle({ jsonrpc: "2.0", id: 1, method: "session/resume", params: { sessionId: S, cwd: "/" } })).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(await handler.handle({ jsonrpc: "2.0", id: 2, method: "session/restore_tool_call", params: { sessionId: S, toolCallId: "tc_42" } })).toMatchObject({ result: { restoredPaths: ["notes", "notes/plan.md"] } });
    expect(await handler.handle({ jsonrpc: "2.0", id: 3, method: "session/resume", params: { sessionId: "sess_unknown", cwd: "/" } })).toMatchObject({ id: 3, error: { code: JSON_RPC_ERROR_CODES.resourceNotFound } });
    expect(await handler.handle({ jsonrpc: "2.0", id: 4, method: "session/resume", params: {} })).toMatchObject({ id: 4, error: { code: JSON_RPC_ERROR_CODES.invalidParams } });
  });

  it("restores a tool call and emits tool_call_update with the restored paths", async () => {
    const notes: JsonRpcNotification[] = [];
    const handler = new AcpUndoHandler({ store, notify: (n) => void notes.push(n), metaNamespace: "harn" });
    const response = await handler.handle({ jsonrpc: "2.0", id: "r1", method: "session/restore_tool_call", params: { sessionId: S, toolCallId: "tc_42" } });
    expect(response).toEqual({ jsonrpc: "2.0", id: "r1", result: { restoredPaths: ["notes", "notes/plan.md"] } });
    expect(notes).toEqual([
      {
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId: S, update: { sessionUpdate: "tool_call_update", toolCallId: "tc_42", status: "restored", _meta: { harn: { kind: "tool_call_restored", restoredPaths: ["notes", "notes/plan.md"] } } } },
      },
    ]);
    expect(await fs.exists("notes")).toBe(false);
  });

  it("answers malformed input with JSON-RPC errors and ignores notifications", async () => {
    const handler = new AcpUndoHandler({ store });
    expect(JSON.parse((await handler.handleText("{oops")) ?? "")).toMatchObject({ id: null, error: { code: JSON_RPC_ERROR_CODES.parseError } });
    expect(await handler.handle({ id: 1, method: "initialize" })).toMatchObject({ id: 1, error: { code: JSON_RPC_ERROR_CODES.invalidRequest } });
    expect(await handler.handle([])).toMatchObject({ error: { code: JSON_RPC_ERROR_CODES.invalidRequest } });
    expect(await handler.handle({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: {} })).toMatchObject({ id: 2, error: { code: JSON_RPC_ERROR_CODES.methodNotFound } });
    expect(await handler.handle({ jsonrpc: "2.0", id: 3, method: "session/restore_tool_call", params: { sessionId: S } })).toMatchObject({
      id: 3,
      error: { code: JSON_RPC_ERROR_CODES.invalidParams, message: expect.stringMatching(/toolCallId/) },
    });
    expect(await handler.handle({ jsonrpc: "2.0", id: 4, method: "session/restore_tool_call", params: { sessionId: S, toolCallId: "tc_nope" } })).toMatchObject({
      id: 4,
      error: { code: JSON_RPC_ERROR_CODES.resourceNotFound, data: { code: "E_SNAPSHOT_NOT_FOUND", scopeId: "tc_nope" } },
    });
    expect(await handler.handle({ jsonrpc: "2.0", id: 5, method: "session/redo", params: { sessionId: "../x" } })).toMatchObject({ id: 5, error: { code: JSON_RPC_ERROR_CODES.invalidParams, data: { code: "EINVAL" } } });
    expect(await handler.handle({ jsonrpc: "2.0", method: "session/restore_tool_call", params: { sessionId: S, toolCallId: "tc_42" } })).toBeNull();
    expect(await handler.handle({ jsonrpc: "2.0", id: 9, result: {} })).toBeNull();
    const batch = await handler.handle([{ jsonrpc: "2.0", id: 6, method: "initialize" }, { jsonrpc: "2.0", method: "initialize" }]);
    expect(Array.isArray(batch) && batch.map((r) => r.id)).toEqual([6]);
  });
});

describe("stdio transport", () => {
  it("serves a real client process over pipes: restore, rollback, redo, errors", async () => {
    const steps = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
      { jsonrpc: "2.0", id: 2, method: "session/restore_tool_call", params: { sessionId: S, toolCallId: "tc_42" } },
      { jsonrpc: "2.0", id: 3, method: "session/rollback", params: { sessionId: S } },
      "this is not json",
      { jsonrpc: "2.0", id: 4, method: "session/redo", params: { sessionId: S } },
      { jsonrpc: "2.0", id: 5, method: "session/restore_tool_call", params: { sessionId: S, toolCallId: "missing" } },
    ];
    const child = spawn(process.execPath, [CLIENT, JSON.stringify(steps)], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    await serveAcpUndoStdio({ store, input: child.stdout, output: child.stdin });
    expect(await exited).toBe(0);
    const received = JSON.parse(stderr) as Record<string, unknown>[];
    const responses = received.filter((message) => !("method" in message));
    const updates = received.filter((message) => message.method === "session/update");

    expect(responses.map((r) => r.id)).toEqual([1, 2, 3, null, 4, 5]);
    expect(responses[0]).toMatchObject({ result: { agentCapabilities: { sessionCapabilities: { restoreToolCall: {}, rollback: {}, redo: {} } } } });
    expect(responses[1]).toMatchObject({ result: { restoredPaths: ["notes", "notes/plan.md"] } });
    // tc_42 is already undone, so rolling back goes to turn-1 (tc_41's edit).
    expect(responses[2]).toMatchObject({ result: { turnIds: ["turn-1"], toolCallIds: ["tc_41"], restoredPaths: ["src/lib.rs"] } });
    expect(responses[3]).toMatchObject({ error: { code: JSON_RPC_ERROR_CODES.parseError } });
    expect(responses[4]).toMatchObject({ result: { turnIds: ["turn-1"], toolCallIds: ["tc_41"] } });
    expect(responses[5]).toMatchObject({ error: { code: JSON_RPC_ERROR_CODES.resourceNotFound } });
    expect(updates.map((u) => (u.params as { update: { toolCallId: string; _meta: { wink: { kind: string } } } }).update)).toEqual([
      expect.objectContaining({ toolCallId: "tc_42", status: "restored", _meta: { wink: { kind: "tool_call_restored", restoredPaths: ["notes", "notes/plan.md"] } } }),
      expect.objectContaining({ toolCallId: "tc_41", status: "restored", _meta: { wink: { kind: "tool_call_restored", restoredPaths: ["src/lib.rs"] } } }),
      expect.objectContaining({ toolCallId: "tc_41", status: "completed", _meta: { wink: { kind: "tool_call_redone", restoredPaths: ["src/lib.rs"] } } }),
    ]);
    // The workspace: tc_42 undone, tc_41 redone.
    expect(await fs.exists("notes")).toBe(false);
    expect((await fs.read("src/lib.rs")).content).toBe("fn run() {}\n");
  });

  it("skips a line longer than the cap with a parse error and keeps serving", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    output.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
    const connection = new NdjsonConnection({ input, output, maxLineBytes: 64 });
    const handler = new AcpUndoHandler({ store });
    const serving = connection.serve((line) => handler.handleText(line));
    input.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"${"x".repeat(200)}"}}\n`);
    // A long line arriving in pieces is dropped up to its newline.
    input.write(`{"jsonrpc":"2.0","id":7,"pad":"${"y".repeat(100)}`);
    await new Promise((resolve) => setImmediate(resolve));
    input.write(`${"z".repeat(100)}"}\n`);
    input.end('{"jsonrpc":"2.0","id":2,"method":"initialize"}\n');
    await serving;
    expect(lines.map((line) => JSON.parse(line) as { id: unknown; error?: { code: number } })).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: JSON_RPC_ERROR_CODES.parseError }) }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: JSON_RPC_ERROR_CODES.parseError }) }),
      expect.objectContaining({ id: 2 }),
    ]);
  });
});
