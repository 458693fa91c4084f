/**
 * One copy of what many lines of a session file share. An index of 1,000,000 small lines
 * held 804 MB of heap (~800 bytes a line): each line kept its own tags record, slice
 * summaries, empty arrays and session id, though a session's lines mostly repeat them. Equal
 * parts are kept once (summaries are read-only); the line's own fields (where it lies, when it
 * was made) stay per line, in `SessionLines`.
 */
import type { EnvelopeSummary, SliceSummary } from "./envelope-scan.js";

/** Distinct values kept per kind: past it a value is stored as given (a file of all-different tags grows no table). */
const MAX_DISTINCT = 10_000;

const NO_STRINGS: readonly string[] = Object.freeze([]);

/** What a line says but for when it was made: many lines of a file say the same. */
export type EnvelopeShape = Omit<EnvelopeSummary, "createdAt">;

class Table<T> {
  readonly #byKey = new Map<string, T>();

  get(key: string, value: T): T {
    const kept = this.#byKey.get(key);
    if (kept !== undefined) return kept;
    if (this.#byKey.size < MAX_DISTINCT) this.#byKey.set(key, value);
    return value;
  }
}

export class SummaryInterning {
  readonly #strings = new Table<string>();
  readonly #tags = new Table<Readonly<Record<string, string>>>();
  readonly #slices = new Table<readonly SliceSummary[]>();
  readonly #lists = new Table<readonly string[]>();

  /**
   * What `summary` says but for its time, with its shared parts replaced by the copies kept,
   * and a key that is the same for every summary that says the same (JSON texts joined: no
   * two different shapes share one).
   */
  shape(summary: EnvelopeSummary): { readonly shape: EnvelopeShape; readonly key: string } {
    const tagsKey = JSON.stringify(summary.tags);
    const slicesKey = JSON.stringify(summary.slices);
    const children = this.#list(summary.childrenIds);
    const validation = this.#list(summary.validationErrors);
    const shape: EnvelopeShape = {
      version: this.#strings.get(summary.version, summary.version),
      parentId: summary.parentId === null ? null : this.#strings.get(summary.parentId, summary.parentId),
      childrenIds: children.value,
      tags: this.#tags.get(tagsKey, summary.tags),
      sessionId: this.#strings.get(summary.sessionId, summary.sessionId),
      validationErrors: validation.value,
      slices: this.#slices.get(slicesKey, summary.slices),
    };
    const key = `${JSON.stringify(summary.version)},${JSON.stringify(summary.parentId)},${JSON.stringify(summary.sessionId)},${tagsKey},${slicesKey},${children.key},${validation.key}`;
    return { shape, key };
  }

  #list(values: readonly string[]): { value: readonly string[]; key: string } {
    if (values.length === 0) return { value: NO_STRINGS, key: "[]" };
    const key = JSON.stringify(values);
    return { value: this.#lists.get(key, values), key };
  }
}
