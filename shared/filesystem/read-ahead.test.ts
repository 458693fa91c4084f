import { describe, expect, it } from "vitest";
import { ReadAhead } from "./read-ahead.js";

interface Item {
  readonly kind: "file" | "directory";
  readonly size: number;
  readonly name: string;
}

/** A reader whose reads stay pending until released, recording what was started. */
function controlledReader() {
  const started: string[] = [];
  const release = new Map<string, (bytes: Uint8Array) => void>();
  const fail = new Map<string, (error: Error) => void>();
  const read = (item: Item): Promise<Uint8Array> => {
    started.push(item.name);
    return new Promise((resolve, reject) => {
      release.set(item.name, resolve);
      fail.set(item.name, reject);
    });
  };
  return { started, release, fail, read };
}

const file = (name: string, size: number): Item => ({ kind: "file", size, name });
const options = { maxFileBytes: 100, budgetBytes: 250, maxPending: 3 };

describe("ReadAhead", () => {
  it("reads the next small files within the byte budget and the count, skipping large files, directories and empty files", () => {
    const items = [file("a", 10), { kind: "directory", size: 0, name: "d" } as Item, file("big", 1000), file("empty", 0), file("b", 100), file("c", 100), file("e", 100), file("f", 10)];
    const reader = controlledReader();
    const ahead = new ReadAhead(items, reader.read, options);
    expect(items.map((_, index) => ahead.isSmall(index))).toEqual([true, false, false, false, true, true, true, true]);
    void ahead.take(0);
    // a itself, then b and c (200 bytes); e would pass the 250-byte budget.
    expect(reader.started).toEqual(["a", "b", "c"]);
    void ahead.take(4);
    // c is still pending (100 bytes): e and f fit beside it.
    expect(reader.started).toEqual(["a", "b", "c", "e", "f"]);
    void ahead.take(5);
    void ahead.take(6);
    void ahead.take(7);
    // Every file was read exactly once.
    expect(reader.started).toEqual(["a", "b", "c", "e", "f"]);
  });

  it("hands each taker its own file's bytes", async () => {
    const items = ["x", "y", "z"].map((name) => file(name, 5));
    const ahead = new ReadAhead(items, async (item) => new TextEncoder().encode(item.name), options);
    const taken = await Promise.all([0, 1, 2].map((index) => ahead.take(index)));
    expect(taken.map((bytes) => new TextDecoder().decode(bytes))).toEqual(["x", "y", "z"]);
  });

  it("reports a failed read to its taker only, and never as an unhandled rejection before that", async () => {
    const items = [file("a", 5), file("b", 5)];
    const reader = controlledReader();
    const ahead = new ReadAhead(items, reader.read, options);
    const first = ahead.take(0);
    reader.fail.get("b")?.(new Error("b is gone"));
    reader.release.get("a")?.(new Uint8Array([1]));
    await expect(first).resolves.toEqual(new Uint8Array([1]));
    // Let the rejected read settle untaken: vitest fails the run on unhandled rejections.
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(ahead.take(1)).rejects.toThrow("b is gone");
  });

  it("refuses to take what it does not read ahead", async () => {
    const ahead = new ReadAhead([file("big", 1000)], async () => new Uint8Array(), options);
    await expect(ahead.take(0)).rejects.toThrow(RangeError);
  });
});
