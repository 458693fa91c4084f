/**
 * Work on many items, a few at a time: `limit` workers each take the next item as soon as
 * their last one is done, so one slow item (an object whose store never answers) holds one
 * worker only, and the items start in the order `items` gives them. `items` is read lazily
 * and shared by the workers: a generator that takes from a queue sees what was added to it
 * meanwhile.
 */
export async function eachAtMost<T>(items: Iterable<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const source = items[Symbol.iterator]();
  const worker = async (): Promise<void> => {
    for (let next = source.next(); next.done !== true; next = source.next()) await work(next.value);
  };
  const workers = Math.max(1, Array.isArray(items) ? Math.min(limit, items.length) : limit);
  await Promise.all(Array.from({ length: workers }, worker));
}
