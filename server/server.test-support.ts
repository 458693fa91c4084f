/**
 * Helpers for the server's tests: temporary snapshot directories, WINK-shaped lines
 * (written the way Python's `json.dumps` writes them), and apps built on them.
 */
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LightMyRequestResponse } from "fastify";
import { SECURITY_FIXTURES, WINK_FIXTURES } from "../fixtures/paths.js";
import { dumpsPython } from "../shared/session/index.js";
import type { AppOptions, WinkApp } from "./app.js";
import { buildApp } from "./app.js";
import { checkResponseSchemas, takeResponseViolations } from "./response-schemas.test-support.js";

/** The committed fixtures (a clean clone has them; the shared folder beside it may not exist). */
export const FIXTURES = WINK_FIXTURES;
export const SECURITY = SECURITY_FIXTURES;

const made: string[] = [];
const apps: WinkApp[] = [];

/** A fresh temporary directory, removed by `cleanUp()`. */
export async function tempDir(prefix = "wink-server-"): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A temporary copy of a fixture directory (or of several files into one directory). */
export async function copyFixture(...sources: string[]): Promise<string> {
  const dir = await tempDir();
  for (const source of sources) await cp(source, path.join(dir, path.basename(source)), { recursive: true });
  return dir;
}

export interface LineSpec {
  sessionId: string;
  createdAt?: string;
  parentId?: string | null;
  childrenIds?: string[];
  tags?: Record<string, string>;
  slices?: { type: string; items: Record<string, unknown>[] }[];
}

/** One snapshot line as WINK's `Snapshot.to_json()` writes it (keys sorted). */
export function snapshotLine(spec: LineSpec): string {
  return dumpsPython(
    {
      children_ids: spec.childrenIds ?? [],
      created_at: spec.createdAt ?? "2026-11-22T01:00:00.000000+00:00",
      parent_id: spec.parentId ?? null,
      slices: (spec.slices ?? []).map((slice) => ({ item_type: slice.type, items: slice.items.map((item) => ({ __type__: slice.type, ...item })), slice_type: slice.type })),
      tags: { ...(spec.tags ?? {}), session_id: spec.sessionId },
      version: "1",
    },
    { sortKeys: true },
  );
}

/** Writes lines (joined with `\n`, final newline) to `dir/name`. */
export async function writeSession(dir: string, name: string, lines: string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

/**
 * Builds an app (no watcher, no background indexing unless asked), closed by `cleanUp()`.
 * Every JSON answer it gives is checked against its route's response schema (`cleanUp()` fails on a mismatch).
 */
export async function testApp(options: AppOptions): Promise<WinkApp> {
  const built = await buildApp({ watch: false, indexInBackground: false, logger: false, webDir: path.join(os.tmpdir(), "wink-no-web-dir"), ...options });
  checkResponseSchemas(built.app);
  apps.push(built);
  return built;
}

/** GET through `inject` with a loopback Host. */
export async function get(app: WinkApp, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.app.inject({ method: "GET", url, headers: { host: "127.0.0.1:8000", ...headers } });
}

/** POST a JSON body through `inject`. */
export async function post(app: WinkApp, url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return app.app.inject({
    method: "POST",
    url,
    headers: { host: "127.0.0.1:8000", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Closes every app and removes every temporary directory; throws if an answer broke its route's response schema. */
export async function cleanUp(): Promise<void> {
  for (const app of apps.splice(0)) await app.app.close();
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  const violations = takeResponseViolations();
  if (violations.length > 0) throw new Error(`Answers that do not match their route's response schema:\n${violations.join("\n")}`);
}
