/**
 * One line of a WINK session file: the JSON layer (`parseJsonLine`) and the snapshot
 * envelope layer (`parseSnapshotLine`).
 *
 * Envelope rules follow WINK's own reader (`SnapshotPayload.from_json`) plus the viewer's
 * `session_id` requirement. A structural problem makes the line an error line; a semantic
 * one (an unsupported version, an unparsable timestamp) is kept as a validation error
 * while the line still loads. Extra keys are ignored and unknown types are never errors.
 */
import { hasErrorCode } from "../errors.js";
import type { JsonObject, JsonValue } from "./json-value.js";
import { isJsonObject, ownValue } from "./json-value.js";
import type { PythonJsonParseOptions } from "./python-json-parse.js";
import { parsePythonJson } from "./python-json-parse.js";
import type { SliceKind } from "./type-names.js";
import { displayName, sliceKindOf } from "./type-names.js";

/** The snapshot schema version WINK writes. */
export const SNAPSHOT_SCHEMA_VERSION = "1";

/**
 * Why a line did not load: bytes that are not UTF-8, a line over the size cap, text that is
 * not a JSON object, an invalid snapshot envelope, or (reading by offset) a file that
 * changed since it was indexed.
 */
export type SessionLineErrorKind = "encoding" | "too-long" | "json" | "envelope" | "stale";

/** A line that did not load; every other line of the file still does. */
export interface SessionLineError {
  /** 1-based physical line number (blank lines count). */
  readonly lineNumber: number;
  readonly kind: SessionLineErrorKind;
  /** A sentence saying what is wrong, e.g. `Invalid JSON at column 52: unterminated string`. */
  readonly reason: string;
  /** The line's session id, when the envelope got far enough to have one. */
  readonly sessionId?: string;
}

export interface SessionSlice {
  /** Type id of the slice (`module:Qualname`). */
  readonly sliceType: string;
  /** Type id of its items (WINK writes the slice type again when they agree). */
  readonly itemType: string;
  readonly displayName: string;
  readonly itemDisplayName: string;
  readonly kind: SliceKind;
  /** The items as written, `__type__` included when present. */
  readonly items: readonly JsonObject[];
}

/** The envelope fields every summary of a line carries (full parse or cheap scan). */
export interface SnapshotEnvelope {
  readonly version: string;
  /** ISO-8601 with offset, as written (not re-formatted). */
  readonly createdAt: string;
  readonly parentId: string | null;
  readonly childrenIds: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  /** `tags.session_id`. */
  readonly sessionId: string;
  /** Semantic problems that do not stop the line from loading (WINK's `validation_error`). */
  readonly validationErrors: readonly string[];
}

/** One fully parsed session snapshot line. */
export interface SessionSnapshot extends SnapshotEnvelope {
  readonly slices: readonly SessionSlice[];
  /** 1-based physical line number; 0 for a snapshot taken in memory. */
  readonly lineNumber: number;
  /** The parsed line as written (for `/api/raw`). */
  readonly raw: JsonObject;
}

export type JsonLineResult =
  | { readonly ok: true; readonly lineNumber: number; readonly value: JsonObject }
  | { readonly ok: false; readonly error: SessionLineError };

export type SnapshotLineResult =
  | { readonly ok: true; readonly snapshot: SessionSnapshot }
  | { readonly ok: false; readonly error: SessionLineError };

/**
 * The JSON layer: parses one line as Python JSON and requires an object. Never throws for
 * bad input; returns an error with the line number instead.
 */
export function parseJsonLine(text: string, lineNumber: number, options: PythonJsonParseOptions = {}): JsonLineResult {
  let value: JsonValue;
  try {
    value = parsePythonJson(text, options);
  } catch (error) {
    if (!hasErrorCode(error, "E_SESSION_LOAD")) throw error;
    return lineError(lineNumber, "json", (error as Error).message);
  }
  if (!isJsonObject(value)) return lineError(lineNumber, "json", `Expected a JSON object, found ${describeJsonType(value)}`);
  return { ok: true, lineNumber, value };
}

/** The snapshot layer: one line of a session file → a typed snapshot or a line error. */
export function parseSnapshotLine(text: string, lineNumber: number, options: PythonJsonParseOptions = {}): SnapshotLineResult {
  const parsed = parseJsonLine(text, lineNumber, options);
  return parsed.ok ? snapshotFromObject(parsed.value, lineNumber) : parsed;
}

/** Validates an already parsed line object as a snapshot envelope. */
export function snapshotFromObject(raw: JsonObject, lineNumber: number): SnapshotLineResult {
  const envelope = validateEnvelope((key) => ownValue(raw, key));
  if (!envelope.ok) return lineError(lineNumber, "envelope", envelope.reason, envelope.sessionId);
  const slicesValue = ownValue(raw, "slices") ?? [];
  if (!Array.isArray(slicesValue)) return lineError(lineNumber, "envelope", "slices must be a list", envelope.value.sessionId);
  const slices: SessionSlice[] = [];
  const fail = (reason: string): SnapshotLineResult => lineError(lineNumber, "envelope", reason, envelope.value.sessionId);
  for (const [index, entry] of slicesValue.entries()) {
    if (!isJsonObject(entry)) return fail(SLICE_NOT_OBJECT(index));
    const header = checkSliceHeader(index, ownValue(entry, "slice_type"), ownValue(entry, "item_type"));
    if (typeof header === "string") return fail(header);
    const items = ownValue(entry, "items") ?? [];
    if (!Array.isArray(items)) return fail(sliceProblem(index, header, ITEMS_NOT_LIST));
    const badItem = items.findIndex((item) => !isJsonObject(item));
    if (badItem !== -1) return fail(sliceProblem(index, header, ITEM_NOT_OBJECT(badItem, describeJsonType(items[badItem] ?? null))));
    const objects = items as JsonObject[];
    slices.push({ ...header, kind: sliceKindOf(objects), items: objects });
  }
  const validationErrors = [...envelope.value.validationErrors, ...duplicateSliceErrors(slices)];
  return { ok: true, snapshot: { ...envelope.value, validationErrors, slices, lineNumber, raw } };
}

/** The first slice of the given type, or undefined. */
export function findSlice(snapshot: { readonly slices: readonly SessionSlice[] }, sliceType: string): SessionSlice | undefined {
  return snapshot.slices.find((slice) => slice.sliceType === sliceType);
}

// ---------------------------------------------------------------------------
// Validation shared with the cheap envelope scan (envelope-scan.ts), so both layers give
// the same verdict and the same words for the same line.

export type EnvelopeCheck =
  | { readonly ok: true; readonly value: SnapshotEnvelope }
  | { readonly ok: false; readonly reason: string; readonly sessionId?: string };

/** Validates the top-level envelope keys other than `slices`, read through `get`. */
export function validateEnvelope(get: (key: string) => JsonValue | undefined): EnvelopeCheck {
  const tagsValue = get("tags") ?? {};
  const tags = isJsonObject(tagsValue) ? stringTags(tagsValue) : null;
  const sessionIdValue = tags !== null && typeof tags !== "string" ? ownValue(tags, "session_id") : undefined;
  const knownSessionId = typeof sessionIdValue === "string" && sessionIdValue !== "" ? sessionIdValue : undefined;
  const fail = (reason: string): EnvelopeCheck => ({ ok: false, reason, ...(knownSessionId === undefined ? {} : { sessionId: knownSessionId }) });

  const version = get("version");
  if (typeof version !== "string") return fail(version === undefined ? "version is missing (not a session snapshot line?)" : "version must be a string");
  const createdAt = get("created_at");
  if (typeof createdAt !== "string") return fail(createdAt === undefined ? "created_at is missing" : "created_at must be a string");
  const parentId = get("parent_id") ?? null;
  if (parentId !== null && typeof parentId !== "string") return fail("parent_id must be a string or null");
  const childrenIds = get("children_ids") ?? [];
  if (!Array.isArray(childrenIds) || !childrenIds.every((child) => typeof child === "string")) {
    return fail("children_ids must be a list of strings");
  }
  if (tags === null) return fail("tags must be an object");
  if (typeof tags === "string") return fail(tags);
  if (sessionIdValue === undefined) return fail("tags.session_id is missing (every snapshot line needs a session id)");
  if (knownSessionId === undefined) return fail("tags.session_id must be a non-empty string");

  const validationErrors: string[] = [];
  if (version !== SNAPSHOT_SCHEMA_VERSION) {
    validationErrors.push(`Snapshot schema version mismatch: expected "${SNAPSHOT_SCHEMA_VERSION}", got "${version}"`);
  }
  if (!ISO_TIMESTAMP.test(createdAt)) validationErrors.push(`created_at is not an ISO-8601 timestamp: "${createdAt}"`);
  return {
    ok: true,
    value: { version, createdAt, parentId, childrenIds: childrenIds as string[], tags, sessionId: knownSessionId, validationErrors },
  };
}

export interface SliceHeader {
  readonly sliceType: string;
  readonly itemType: string;
  readonly displayName: string;
  readonly itemDisplayName: string;
}

/**
 * Validates the type ids of the `slices` entry at `index` (`itemType` undefined when the key
 * is absent: it then defaults to the slice type). Returns the header or the reason.
 */
export function checkSliceHeader(index: number, sliceType: unknown, itemType: unknown): SliceHeader | string {
  const resolvedItemType = itemType === undefined ? sliceType : itemType;
  if (typeof sliceType !== "string" || typeof resolvedItemType !== "string") {
    return `slice ${index}: slice_type and item_type must be strings`;
  }
  return { sliceType, itemType: resolvedItemType, displayName: displayName(sliceType), itemDisplayName: displayName(resolvedItemType) };
}

/** The reason for a problem inside the slice at `index`, naming the slice. */
export function sliceProblem(index: number, header: SliceHeader, problem: string): string {
  return `slice ${index} (${header.displayName}): ${problem}`;
}

export const SLICE_NOT_OBJECT = (index: number): string => `slice ${index} must be an object`;
export const ITEMS_NOT_LIST = "items must be a list";
export const ITEM_NOT_OBJECT = (index: number, found: string): string => `item ${index} must be an object, found ${found}`;

/** Validation errors for slice types that appear more than once in one snapshot. */
export function duplicateSliceErrors(slices: readonly { readonly sliceType: string }[]): string[] {
  const counts = new Map<string, number>();
  for (const slice of slices) counts.set(slice.sliceType, (counts.get(slice.sliceType) ?? 0) + 1);
  return [...counts].filter(([, count]) => count > 1).map(([type, count]) => `slice type ${type} appears ${count} times`);
}

/** A readable name of a JSON value's type, for error messages. */
export function describeJsonType(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "bigint") return "a number";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function lineError(lineNumber: number, kind: SessionLineErrorKind, reason: string, sessionId?: string): { ok: false; error: SessionLineError } {
  return { ok: false, error: { lineNumber, kind, reason, ...(sessionId === undefined ? {} : { sessionId }) } };
}

/** Tags as a string → string record, or the reason they are not one. */
function stringTags(tags: JsonObject): Record<string, string> | string {
  const result: Record<string, string> = {};
  for (const key of Object.keys(tags)) {
    const value = tags[key];
    if (typeof value !== "string") {
      return `tags must map strings to strings (tag "${key}" is ${describeJsonType(value ?? null)})`;
    }
    Object.defineProperty(result, key, { value, writable: true, enumerable: true, configurable: true });
  }
  return result;
}

// What Python's datetime.fromisoformat accepts in practice: a date, optional time with
// fraction, optional offset (Z or ±HH[:MM[:SS[.f]]]).
const ISO_TIMESTAMP =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:\.\d{1,6})?)?)?)?)?$/;
