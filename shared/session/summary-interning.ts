/**
 * One copy of what many lines of a session file share. An index of 1,000,000 small lines
 * held 804 MB of heap (~800 bytes a line): each line kept its own tags record, slice
 * summaries, empty arrays and session id, though a session's lines mostly repeat them. Equal
 * parts are kept once (summaries are read-only); the line's own fields (where it lies, when it
 * was made) stay per line.
 */
import type { EnvelopeSummary, SliceSummary } from "./envelope-scan.js";

/** Distinct values kept per kind: past it a value is stored as given (a file of all-different tags grows no table). */
const MAX_DISTINCT = 10_000;

const NO_STRINGS: readonly string[] = Object.freeze([]);

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

  /** `summary` with its shared parts replaced by the copies kept. */
  intern(summary: EnvelopeSummary): EnvelopeSummary {
    return {
      version: this.#strings.get(summary.version, summary.version),
      createdAt: summary.createdAt,
      parentId: summary.parentId === null ? null : this.#strings.get(summary.parentId, summary.parentId),
      childrenIds: this.#list(summary.childrenIds),
      tags: this.#tags.get(JSON.stringify(summary.tags), summary.tags),
      sessionId: this.#strings.get(summary.sessionId, summary.sessionId),
      validationErrors: this.#list(summary.validationErrors),
      slices: this.#slices.get(JSON.stringify(summary.slices), summary.slices),
    };
  }

  #list(values: readonly string[]): readonly string[] {
    return values.length === 0 ? NO_STRINGS : this.#lists.get(JSON.stringify(values), values);
  }
}
