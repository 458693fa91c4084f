/**
 * A cheap summary of one snapshot line, read straight from its bytes: the envelope fields
 * and, per slice, its type ids, item count and kind. Item bodies are skipped (strings with
 * `indexOf`), never decoded or built, so `/api/meta` of a 25 MB line costs a scan, not a
 * parse; the line is parsed in full only when someone asks for its items.
 *
 * Anything the scan does not expect sends the line to the full parser, so a bad line gets
 * exactly the error `parseSnapshotLine` would give. What the scan cannot see (a malformed
 * token deep inside an item) surfaces when the line is parsed in full.
 */
import type { JsonValue } from "./json-value.js";
import { decodeLineBody } from "./line-text.js";
import { DEFAULT_MAX_JSON_DEPTH, parsePythonJson } from "./python-json-parse.js";
import type { SessionLineError, SessionSnapshot, SliceHeader, SnapshotEnvelope } from "./snapshot-line.js";
import { checkSliceHeader, duplicateSliceErrors, parseSnapshotLine, validateEnvelope } from "./snapshot-line.js";
import type { SliceKind } from "./type-names.js";

export interface SliceSummary extends SliceHeader {
  /** Number of items. */
  readonly count: number;
  readonly kind: SliceKind;
}

/** What the session list and `/api/meta` need from a line, without its items. */
export interface EnvelopeSummary extends SnapshotEnvelope {
  readonly slices: readonly SliceSummary[];
}

export type EnvelopeScanResult =
  | { readonly ok: true; readonly summary: EnvelopeSummary }
  | { readonly ok: false; readonly error: SessionLineError };

export interface EnvelopeScanOptions {
  /** Nesting cap, as in the parser (default 1000). */
  maxDepth?: number;
}

/**
 * Summarises a line body (bytes without BOM, CR or `\n`; see `lineBody`). On anything
 * unexpected it parses the line in full and returns that verdict.
 */
export function scanEnvelope(body: Uint8Array, lineNumber: number, options: EnvelopeScanOptions = {}): EnvelopeScanResult {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const summary = summaryOf(new EnvelopeScanner(body, maxDepth).tryScan());
  if (summary !== null) return { ok: true, summary };
  const decoded = decodeLineBody(body, lineNumber);
  if (decoded.kind === "error") return { ok: false, error: decoded.error };
  const parsed = parseSnapshotLine(decoded.kind === "text" ? decoded.text : "", lineNumber, { maxDepth });
  return parsed.ok ? { ok: true, summary: summarizeSnapshot(parsed.snapshot) } : parsed;
}

/**
 * A line too long to hold whole, seen through a window that moves along it (a reused
 * buffer, read as the scan goes: `session-file.node.ts`).
 */
export interface EnvelopeWindow {
  /** The bytes in view: a part of the line body. */
  readonly bytes: Uint8Array;
  /**
   * Moves the view on: the bytes before `keepFrom` leave it, the line's next ones are added
   * after the rest. False (view unchanged) when the line has no more.
   */
  advance(keepFrom: number): boolean;
}

/**
 * {@link scanEnvelope} of a line seen through `window`: the same summary when the scan
 * succeeds, null when the line needs the full parser (the caller then reads it whole; what
 * the line's bytes are worth, UTF-8 included, is the caller's to check).
 */
export function scanEnvelopeWindow(window: EnvelopeWindow, options: EnvelopeScanOptions = {}): EnvelopeSummary | null {
  return summaryOf(new EnvelopeScanner(window, options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH).tryScan());
}

function summaryOf(fields: ScannedFields | null): EnvelopeSummary | null {
  if (fields === null) return null;
  const envelope = validateEnvelope((key) => fields.header.get(key));
  const slices = fields.slices === undefined ? [] : summarizeScannedSlices(fields.slices);
  if (!envelope.ok || slices === null) return null;
  const validationErrors = [...envelope.value.validationErrors, ...duplicateSliceErrors(slices)];
  return { ...envelope.value, validationErrors, slices };
}

/** The summary of a fully parsed snapshot (same shape as {@link scanEnvelope} gives). */
export function summarizeSnapshot(snapshot: SessionSnapshot): EnvelopeSummary {
  return {
    version: snapshot.version,
    createdAt: snapshot.createdAt,
    parentId: snapshot.parentId,
    childrenIds: snapshot.childrenIds,
    tags: snapshot.tags,
    sessionId: snapshot.sessionId,
    validationErrors: snapshot.validationErrors,
    slices: snapshot.slices.map((slice) => ({
      sliceType: slice.sliceType,
      itemType: slice.itemType,
      displayName: slice.displayName,
      itemDisplayName: slice.itemDisplayName,
      count: slice.items.length,
      kind: slice.kind,
    })),
  };
}

interface ScannedSlice {
  readonly sliceType: JsonValue | undefined;
  readonly itemType: JsonValue | undefined;
  readonly count: number;
  readonly firstItemIsEvent: boolean;
}

interface ScannedFields {
  readonly header: Map<string, JsonValue>;
  /** undefined when the line has no `slices` key (WINK's default: no slices). */
  readonly slices: readonly ScannedSlice[] | undefined;
}

function summarizeScannedSlices(scanned: readonly ScannedSlice[]): SliceSummary[] | null {
  const slices: SliceSummary[] = [];
  for (const [index, slice] of scanned.entries()) {
    const header = checkSliceHeader(index, slice.sliceType, slice.itemType);
    if (typeof header === "string") return null;
    slices.push({ ...header, count: slice.count, kind: slice.firstItemIsEvent ? "event" : "state" });
  }
  return slices;
}

/** Thrown inside the scanner when the line needs the full parser. */
class NeedsFullParse {}

const HEADER_KEYS = new Set(["version", "created_at", "parent_id", "children_ids", "tags"]);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The scanner's view of a whole line body: it has nothing more to show. */
const WHOLE = { advance: () => false };

class EnvelopeScanner {
  private bytes: Uint8Array;
  private pos = 0;
  /** Where the key or small value being read starts (the window keeps it in view), or -1. */
  private mark = -1;
  /** Backslashes just before the view's start (they may escape a quote at its start). */
  private carriedBackslashes = 0;
  private readonly window: Pick<EnvelopeWindow, "advance">;

  constructor(
    source: Uint8Array | EnvelopeWindow,
    private readonly maxDepth: number,
  ) {
    if (source instanceof Uint8Array) {
      this.bytes = source;
      this.window = WHOLE;
    } else {
      this.bytes = source.bytes;
      this.window = source;
    }
  }

  tryScan(): ScannedFields | null {
    try {
      return this.scanTop();
    } catch (error) {
      if (error instanceof NeedsFullParse) return null;
      throw error;
    }
  }

  /** Brings the line's next bytes into view (`pos` is at the view's end); false at the line's end. */
  private more(): boolean {
    const window = this.window;
    if (window === WHOLE) return false;
    const bytes = this.bytes;
    const keepFrom = this.mark === -1 ? this.pos : this.mark;
    let run = 0;
    while (run < keepFrom && bytes[keepFrom - 1 - run] === 0x5c) run++;
    if (!window.advance(keepFrom)) return false;
    // Backslashes that leave the view are counted, for a quote they may still escape.
    if (keepFrom > 0) this.carriedBackslashes = run === keepFrom ? run + this.carriedBackslashes : run;
    this.bytes = (window as EnvelopeWindow).bytes;
    this.pos -= keepFrom;
    if (this.mark !== -1) this.mark -= keepFrom;
    return true;
  }

  /** The byte at `pos`, brought into view; undefined at the line's end. */
  private peek(): number | undefined {
    const c = this.bytes[this.pos];
    return c !== undefined || !this.more() ? c : this.bytes[this.pos];
  }

  private scanTop(): ScannedFields {
    const header = new Map<string, JsonValue>();
    let slices: ScannedSlice[] | undefined;
    this.skipWhitespace();
    this.forEachMember(1, (key) => {
      if (key === "slices") slices = this.scanSlices();
      else if (HEADER_KEYS.has(key)) header.set(key, this.readSmallValue(1));
      else this.skipValue(1);
    });
    this.skipWhitespace();
    if (this.peek() !== undefined) throw new NeedsFullParse();
    return { header, slices };
  }

  private scanSlices(): ScannedSlice[] {
    const slices: ScannedSlice[] = [];
    this.forEachElement(2, () => {
      let sliceType: JsonValue | undefined;
      let itemType: JsonValue | undefined;
      let count = 0;
      let firstItemIsEvent = false;
      this.forEachMember(3, (key) => {
        if (key === "slice_type") sliceType = this.readSmallValue(3);
        else if (key === "item_type") itemType = this.readSmallValue(3);
        else if (key === "items") [count, firstItemIsEvent] = this.scanItems();
        else this.skipValue(3);
      });
      slices.push({ sliceType, itemType, count, firstItemIsEvent });
    });
    return slices;
  }

  /** Counts the items (each must be an object) and tells whether the first is an event. */
  private scanItems(): [number, boolean] {
    let count = 0;
    let firstIsEvent = false;
    this.forEachElement(4, () => {
      if (this.peek() !== 0x7b) throw new NeedsFullParse();
      if (count === 0) {
        const keys = new Set<string>();
        this.forEachMember(5, (key) => {
          keys.add(key);
          this.skipValue(5);
        });
        firstIsEvent = keys.has("event_id") && keys.has("created_at");
      } else {
        this.skipValue(4);
      }
      count++;
    });
    return [count, firstIsEvent];
  }

  /** Walks `{ "key": value, … }`; `visit` must consume the value. */
  private forEachMember(depth: number, visit: (key: string) => void): void {
    if (depth > this.maxDepth || this.peek() !== 0x7b) throw new NeedsFullParse();
    this.pos++;
    this.skipWhitespace();
    if (this.peek() === 0x7d) {
      this.pos++;
      return;
    }
    for (;;) {
      const key = this.readKey();
      this.skipWhitespace();
      if (this.peek() !== 0x3a) throw new NeedsFullParse();
      this.pos++;
      this.skipWhitespace();
      visit(key);
      this.skipWhitespace();
      const c = this.peek();
      this.pos++;
      if (c === 0x7d) return;
      if (c !== 0x2c) throw new NeedsFullParse();
      this.skipWhitespace();
    }
  }

  /** Walks `[ value, … ]`; `visit` must consume each element. */
  private forEachElement(depth: number, visit: () => void): void {
    if (depth > this.maxDepth || this.peek() !== 0x5b) throw new NeedsFullParse();
    this.pos++;
    this.skipWhitespace();
    if (this.peek() === 0x5d) {
      this.pos++;
      return;
    }
    for (;;) {
      visit();
      this.skipWhitespace();
      const c = this.peek();
      this.pos++;
      if (c === 0x5d) return;
      if (c !== 0x2c) throw new NeedsFullParse();
      this.skipWhitespace();
    }
  }

  private readKey(): string {
    if (this.peek() !== 0x22) throw new NeedsFullParse();
    this.mark = this.pos;
    this.skipString();
    const start = this.mark;
    this.mark = -1;
    const raw = this.bytes.subarray(start + 1, this.pos - 1);
    // Most keys are plain ASCII; one with escapes goes through the JSON parser.
    return raw.includes(0x5c) ? this.parseRange(start, this.pos) as string : this.decode(raw);
  }

  /** Parses a (small) value in full: envelope fields and type ids. */
  private readSmallValue(depth: number): JsonValue {
    this.mark = this.pos;
    this.skipValue(depth);
    const start = this.mark;
    this.mark = -1;
    return this.parseRange(start, this.pos);
  }

  private parseRange(start: number, end: number): JsonValue {
    try {
      return parsePythonJson(this.decode(this.bytes.subarray(start, end)), { maxDepth: this.maxDepth });
    } catch {
      throw new NeedsFullParse();
    }
  }

  private decode(bytes: Uint8Array): string {
    try {
      return utf8.decode(bytes);
    } catch {
      throw new NeedsFullParse();
    }
  }

  /**
   * Skips one value without building it; `depth` is the nesting level of the container that
   * holds it. Brackets are matched by count only (the full parse checks their kinds).
   */
  private skipValue(depth: number): void {
    const first = this.peek();
    if (first === 0x22) {
      this.skipString();
      return;
    }
    if (first !== 0x7b && first !== 0x5b) {
      let skipped = 0;
      for (;;) {
        const { bytes } = this;
        let pos = this.pos;
        while (pos < bytes.length && isScalarByte(bytes[pos] ?? 0)) pos++;
        skipped += pos - this.pos;
        this.pos = pos;
        if (pos < bytes.length || !this.more()) break;
      }
      if (skipped === 0) throw new NeedsFullParse();
      return;
    }
    let open = 0;
    let { bytes } = this;
    let pos = this.pos;
    do {
      if (pos >= bytes.length) {
        this.pos = pos;
        if (!this.more()) throw new NeedsFullParse();
        ({ bytes, pos } = this);
      }
      const c = bytes[pos];
      if (c === 0x22) {
        this.pos = pos;
        this.skipString();
        ({ bytes, pos } = this);
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth + ++open > this.maxDepth) throw new NeedsFullParse();
      } else if (c === 0x7d || c === 0x5d) {
        open--;
      }
      pos++;
    } while (open > 0);
    this.pos = pos;
  }

  private skipString(): void {
    let from = this.pos + 1;
    for (;;) {
      const { bytes } = this;
      let end = bytes.indexOf(0x22, from);
      while (end !== -1 && this.isEscaped(end)) end = bytes.indexOf(0x22, end + 1);
      if (end !== -1) {
        this.pos = end + 1;
        return;
      }
      this.pos = bytes.length;
      if (!this.more()) throw new NeedsFullParse();
      from = this.pos;
    }
  }

  private isEscaped(quoteIndex: number): boolean {
    const { bytes } = this;
    let backslashes = 0;
    let j = quoteIndex - 1;
    for (; j >= 0 && bytes[j] === 0x5c; j--) backslashes++;
    if (j < 0) backslashes += this.carriedBackslashes;
    return backslashes % 2 === 1;
  }

  private skipWhitespace(): void {
    for (;;) {
      const { bytes } = this;
      let pos = this.pos;
      let c = bytes[pos];
      while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = bytes[++pos];
      this.pos = pos;
      if (c !== undefined || !this.more()) return;
    }
  }
}

function isScalarByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x2b || c === 0x2e;
}
