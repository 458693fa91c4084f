/**
 * A second, slower tier under the in-memory `RangeCache`: blocks kept between processes
 * (the CLI's `--cache-dir`, `disk-block-cache.node.ts`). Browser-safe as an interface so
 * `Source` and `RandomAccessReader` stay browser-safe.
 *
 * Identities are the range cache's entry keys (source location, object key, validator,
 * block size and number): a block is only ever found again for the same version of the
 * same object. A store hashes them; it never writes them, nor anything else but the bytes.
 */
export interface BlockStore {
  /** The bytes stored under `identity`, or null (never stored, evicted, or found damaged and dropped). */
  get(identity: string): Promise<Uint8Array | null>;
  /** Stores `bytes` under `identity` in the background; failures only count, never throw. */
  put(identity: string, bytes: Uint8Array): void;
  /** Waits for the writes `put` started. */
  flush(): Promise<void>;
}
