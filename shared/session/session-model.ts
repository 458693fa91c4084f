/**
 * A minimal session for agents written in TypeScript: slices of items keyed by type id,
 * tags, and a tree of child sessions, snapshotted into exactly what WINK writes.
 *
 * Items are copied to plain JSON values when they are added (so later changes to the
 * caller's objects never alter recorded state), and a snapshot follows WINK's
 * `Snapshot.to_json`: slices sorted by type id, empty slices left out, `created_at` in
 * Python's `isoformat()` style.
 */
import { InvalidArgumentError, SnapshotNotFoundError } from "../errors.js";
import type { JsonObject, JsonValue } from "./json-value.js";
import { setOwnValue } from "./json-value.js";
import { compareCodePoints, dumpsPython } from "./python-json-dumps.js";
import { DEFAULT_MAX_JSON_DEPTH } from "./python-json-parse.js";
import type { SessionSnapshot } from "./snapshot-line.js";
import { SNAPSHOT_SCHEMA_VERSION, snapshotFromObject } from "./snapshot-line.js";

export interface SessionOptions {
  /** Defaults to `tags.session_id`, else a random UUID. */
  sessionId?: string;
  /** Extra tags; `session_id` (and `parent_session_id` for children) are managed. */
  tags?: Readonly<Record<string, string>>;
  /** Source of `created_at` for snapshots (default: the current time). */
  clock?: () => Date;
}

export interface SliceWriteOptions {
  /** Type id of the items; default: the first item's `__type__`, else the slice type. */
  itemType?: string;
}

interface SliceState {
  itemType: string | undefined;
  items: JsonObject[];
}

/** A session: typed slices of JSON items, tags, and child sessions. */
export class Session {
  readonly sessionId: string;
  readonly #tags: Record<string, string> = {};
  readonly #slices = new Map<string, SliceState>();
  readonly #children: Session[] = [];
  readonly #clock: () => Date;
  readonly #saved = new Map<string, SessionSnapshot>();
  #parent: Session | null = null;

  constructor(options: SessionOptions = {}) {
    const sessionId = options.sessionId ?? options.tags?.session_id ?? randomSessionId();
    if (typeof sessionId !== "string" || sessionId === "") throw new InvalidArgumentError("sessionId must be a non-empty string");
    this.sessionId = sessionId;
    for (const [key, value] of Object.entries(options.tags ?? {})) this.setTag(key, value);
    this.#tags.session_id = sessionId;
    this.#clock = options.clock ?? (() => new Date());
  }

  get parent(): Session | null {
    return this.#parent;
  }

  /** Child sessions in the order they were added. */
  get children(): readonly Session[] {
    return [...this.#children];
  }

  /** A copy of the tags (always including `session_id`). */
  get tags(): Readonly<Record<string, string>> {
    return { ...this.#tags };
  }

  /** Sets a tag. `session_id` and `parent_session_id` are managed and cannot be changed. */
  setTag(key: string, value: string): void {
    if (typeof value !== "string") throw new InvalidArgumentError(`Tag "${key}" must be a string`, { key });
    if (key === "session_id" || key === "parent_session_id") {
      if (key === "session_id" && value === this.sessionId) return;
      throw new InvalidArgumentError(`Tag "${key}" is managed by the session`, { key });
    }
    Object.defineProperty(this.#tags, key, { value, writable: true, enumerable: true, configurable: true });
  }

  /** Creates a session registered as this one's child (inherits the clock by default). */
  createChild(options: SessionOptions = {}): Session {
    const child = new Session({ clock: this.#clock, ...options });
    this.addChild(child);
    return child;
  }

  /** Registers an existing parentless session as a child. */
  addChild(child: Session): void {
    if (child.#parent !== null) throw new InvalidArgumentError(`Session ${child.sessionId} already has a parent`);
    if (child === this || this.#hasAncestor(child)) {
      throw new InvalidArgumentError(`Session ${child.sessionId} cannot be its own descendant`);
    }
    child.#parent = this;
    child.#tags.parent_session_id = this.sessionId;
    this.#children.push(child);
  }

  /** Appends an item (a plain object) to a slice. */
  append(sliceType: string, item: object, options: SliceWriteOptions = {}): void {
    this.extend(sliceType, [item], options);
  }

  /** Appends several items to a slice. */
  extend(sliceType: string, items: readonly object[], options: SliceWriteOptions = {}): void {
    const slice = this.#slice(sliceType, options);
    slice.items.push(...items.map((item) => toJsonItem(item, sliceType)));
  }

  /** Replaces a slice's items (WINK's `seed`); an empty list empties it. */
  replace(sliceType: string, items: readonly object[], options: SliceWriteOptions = {}): void {
    const converted = items.map((item) => toJsonItem(item, sliceType));
    const slice = this.#slice(sliceType, options);
    slice.items = converted;
  }

  /** A copy of the slice's items (empty when the slice does not exist). Treat items as read-only. */
  items(sliceType: string): readonly JsonObject[] {
    return [...(this.#slices.get(sliceType)?.items ?? [])];
  }

  /** The slice's last item. */
  latest(sliceType: string): JsonObject | undefined {
    const items = this.#slices.get(sliceType)?.items;
    return items?.[items.length - 1];
  }

  /** Type ids of the slices that have been written to, in first-write order. */
  sliceTypes(): string[] {
    return [...this.#slices.keys()];
  }

  /**
   * The session's state as one snapshot line would hold it (`lineNumber` 0). Given an id
   * (WINK's `session.snapshot(snapshot_id)`), the snapshot is also kept under it for
   * `rollback(id)` — the way a filesystem snapshot and a session snapshot share one id.
   */
  snapshot(idOrOptions?: string | { createdAt?: Date; id?: string }): SessionSnapshot {
    const options = typeof idOrOptions === "string" ? { id: idOrOptions } : (idOrOptions ?? {});
    if (options.id !== undefined && (typeof options.id !== "string" || options.id === "")) throw new InvalidArgumentError("A snapshot id must be a non-empty string", { id: String(options.id) });
    const slices = [...this.#slices]
      .filter(([, slice]) => slice.items.length > 0)
      .sort(([a], [b]) => compareCodePoints(a, b))
      .map(([sliceType, slice]): JsonObject => ({
        slice_type: sliceType,
        item_type: slice.itemType ?? itemTypeOf(slice.items[0]) ?? sliceType,
        items: [...slice.items],
      }));
    const raw: JsonObject = {
      version: SNAPSHOT_SCHEMA_VERSION,
      created_at: pythonIsoTimestamp(options.createdAt ?? this.#clock()),
      parent_id: this.#parent?.sessionId ?? null,
      children_ids: this.#children.map((child) => child.sessionId),
      slices,
      tags: { ...this.#tags },
    };
    const result = snapshotFromObject(raw, 0);
    if (!result.ok) throw new InvalidArgumentError(`Session ${this.sessionId} cannot be snapshotted: ${result.error.reason}`);
    if (options.id !== undefined) {
      this.#saved.delete(options.id);
      this.#saved.set(options.id, result.snapshot);
    }
    return result.snapshot;
  }

  /** The snapshot kept under `id` by `snapshot(id)`, or null. */
  savedSnapshot(id: string): SessionSnapshot | null {
    return this.#saved.get(id) ?? null;
  }

  /** Ids of the snapshots kept by `snapshot(id)`, in the order they were (last) taken. */
  savedSnapshotIds(): string[] {
    return [...this.#saved.keys()];
  }

  /**
   * Put the slices back to what the snapshot kept under `id` holds (WINK's
   * `session.rollback(snapshot_id)`); tags and children stay. SnapshotNotFoundError when no
   * snapshot has that id. Returns the snapshot.
   */
  rollback(id: string): SessionSnapshot {
    const saved = this.#saved.get(id);
    if (saved === undefined) throw new SnapshotNotFoundError(id, `No session snapshot with id ${JSON.stringify(id)} in session ${this.sessionId}`, { sessionId: this.sessionId });
    this.restore(saved);
    return saved;
  }

  /** Put the slices back to what `snapshot` holds (slices it lacks are emptied). */
  restore(snapshot: SessionSnapshot): void {
    const wanted = new Set(snapshot.slices.map((slice) => slice.sliceType));
    for (const sliceType of this.sliceTypes()) if (!wanted.has(sliceType)) this.replace(sliceType, []);
    for (const slice of snapshot.slices) this.replace(slice.sliceType, slice.items, { itemType: slice.itemType });
  }

  #hasAncestor(candidate: Session): boolean {
    for (let ancestor = this.#parent; ancestor !== null; ancestor = ancestor.#parent) {
      if (ancestor === candidate) return true;
    }
    return false;
  }

  #slice(sliceType: string, options: SliceWriteOptions): SliceState {
    if (typeof sliceType !== "string" || sliceType === "") throw new InvalidArgumentError("sliceType must be a non-empty string");
    let slice = this.#slices.get(sliceType);
    if (slice === undefined) {
      slice = { itemType: undefined, items: [] };
      this.#slices.set(sliceType, slice);
    }
    if (options.itemType !== undefined) slice.itemType = options.itemType;
    return slice;
  }
}

/**
 * The JSONL lines of a session tree as WINK's `dump_session` writes them: the root first,
 * then each child subtree (children in the order they were added), one `json.dumps(…,
 * sort_keys=True)` line per session; sessions whose slices are all empty are skipped.
 */
export function sessionTreeLines(root: Session, options: { createdAt?: Date } = {}): string[] {
  const lines: string[] = [];
  const pending: Session[] = [root];
  for (let session = pending.pop(); session !== undefined; session = pending.pop()) {
    const snapshot = session.snapshot(options);
    if (snapshot.slices.length > 0) lines.push(dumpsPython(snapshot.raw, { sortKeys: true }));
    pending.push(...[...session.children].reverse());
  }
  return lines;
}

/** `datetime.isoformat()` of an aware UTC datetime: `2026-11-22T01:32:19.511000+00:00`. */
export function pythonIsoTimestamp(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError("Invalid Date");
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ (±YYYYYY outside 0000–9999)
  const [seconds = iso, millis = "000"] = iso.slice(0, -1).split(".");
  return millis === "000" ? `${seconds}+00:00` : `${seconds}.${millis}000+00:00`;
}

function itemTypeOf(item: JsonObject | undefined): string | undefined {
  const type = item !== undefined && Object.prototype.hasOwnProperty.call(item, "__type__") ? item.__type__ : undefined;
  return typeof type === "string" ? type : undefined;
}

function randomSessionId(): string {
  return globalThis.crypto.randomUUID();
}

/** Copies a slice item into plain JSON values, as JSON.stringify would see it. */
function toJsonItem(item: object, sliceType: string): JsonObject {
  const value = toJsonValue(item, 0, new Set());
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(`Items of slice ${sliceType} must be plain objects`, { sliceType });
  }
  return value as JsonObject;
}

function toJsonValue(value: unknown, depth: number, ancestors: Set<object>): JsonValue | undefined {
  switch (typeof value) {
    case "string":
    case "number":
    case "bigint":
    case "boolean":
      return value;
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === "function") {
    const replacement: unknown = (withToJson.toJSON as () => unknown).call(value);
    if (replacement !== value) return toJsonValue(replacement, depth, ancestors);
  }
  if (depth >= DEFAULT_MAX_JSON_DEPTH) throw new InvalidArgumentError(`Item nested deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`);
  if (ancestors.has(value)) throw new InvalidArgumentError("Item contains a circular reference");
  ancestors.add(value);
  let result: JsonValue;
  if (Array.isArray(value)) {
    result = value.map((element: unknown) => toJsonValue(element, depth + 1, ancestors) ?? null);
  } else {
    const object: JsonObject = {};
    for (const key of Object.keys(value)) {
      const member = toJsonValue((value as Record<string, unknown>)[key], depth + 1, ancestors);
      if (member !== undefined) setOwnValue(object, key, member);
    }
    result = object;
  }
  ancestors.delete(value);
  return result;
}
