import { describe, expect, it } from "vitest";
import { ComputedResponses, type JsonAnswer } from "./computed-responses.js";

const chunk = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The answer as it is being written (a kept one is an array). */
function streamed(answer: JsonAnswer): AsyncIterator<Uint8Array> {
  expect(Array.isArray(answer)).toBe(false);
  return (answer as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
}

async function text(answer: JsonAnswer): Promise<string> {
  const parts: Uint8Array[] = [];
  if (Array.isArray(answer)) parts.push(...(answer as readonly Uint8Array[]));
  else for await (const part of answer as AsyncIterable<Uint8Array>) parts.push(part);
  return Buffer.concat(parts).toString("utf8");
}

/** A write the test moves on by hand: `push` a chunk, `end` it (or fail it). */
function controlledWrite() {
  let push: (chunk: Uint8Array) => void = () => {};
  let settle: (error?: unknown) => void = () => {};
  let calls = 0;
  const write = (next: (chunk: Uint8Array) => void): Promise<void> => {
    calls++;
    push = next;
    return new Promise<void>((resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))));
  };
  return { write, push: (value: string) => push(chunk(value)), end: (error?: unknown) => settle(error), calls: () => calls };
}

describe("ComputedResponses.stream", () => {
  it("sends the chunks as they are written to every request that came meanwhile, and keeps an answer that fits", async () => {
    const responses = new ComputedResponses(1024);
    const control = controlledWrite();
    const first = responses.stream("k", 10, control.write);
    const second = responses.stream("k", 10, control.write);
    control.push('{"a":');
    const [one, two] = await Promise.all([first, second]);
    const texts = Promise.all([text(one), text(two)]);
    control.push("1}");
    control.end();
    expect(await texts).toEqual(['{"a":1}', '{"a":1}']);
    expect(control.calls()).toBe(1);
    const kept = await responses.stream("k", 10, control.write);
    expect(Array.isArray(kept)).toBe(true);
    expect(await text(kept)).toBe('{"a":1}');
    expect(control.calls()).toBe(1);
  });

  it("past the budget, drops what every request has sent, and a request after that starts its own", async () => {
    const responses = new ComputedResponses(4);
    const control = controlledWrite();
    const first = responses.stream("k", 100, control.write);
    control.push("[1,");
    const reader = streamed(await first);
    expect(new TextDecoder().decode((await reader.next()).value)).toBe("[1,");
    control.push("2]");
    expect(new TextDecoder().decode((await reader.next()).value)).toBe("2]");
    // Its first chunk is gone: a new request cannot be sent the answer from its start.
    const late = controlledWrite();
    const again = responses.stream("k", 100, late.write);
    expect(late.calls()).toBe(1);
    late.push("[1,2]");
    late.end();
    expect(await text(await again)).toBe("[1,2]");
    control.end();
    expect((await reader.next()).done).toBe(true);
    // Too big to keep: the next request writes it again.
    const third = controlledWrite();
    const next = responses.stream("k", 100, third.write);
    third.push("[]");
    third.end();
    expect(await text(await next)).toBe("[]");
    expect(third.calls()).toBe(1);
  });

  it("keeps what a request that closed early had not read from holding the others back", async () => {
    const responses = new ComputedResponses(4);
    const control = controlledWrite();
    const gone = responses.stream("k", 100, control.write);
    const stays = responses.stream("k", 100, control.write);
    control.push("ab");
    const closing = streamed(await gone);
    await closing.return?.();
    const reader = streamed(await stays);
    expect(new TextDecoder().decode((await reader.next()).value)).toBe("ab");
    // Every remaining reader passed the first chunk: it was dropped, so a new request writes anew.
    const fresh = controlledWrite();
    void responses.stream("k", 100, fresh.write);
    expect(fresh.calls()).toBe(1);
    control.end();
  });

  it("fails the request when the answer fails before its first chunk, and ends the sending when it fails after", async () => {
    const responses = new ComputedResponses(1024);
    const early = controlledWrite();
    const failed = responses.stream("early", 10, early.write);
    early.end(new Error("Line 1 does not load"));
    await expect(failed).rejects.toThrow("Line 1 does not load");

    const late = controlledWrite();
    const started = responses.stream("late", 10, late.write);
    late.push("[");
    const answer = await started;
    late.end(new Error("The worker thread stopped"));
    await expect(text(answer)).rejects.toThrow("The worker thread stopped");
    // Nothing was kept: the next request writes it again.
    const retry = controlledWrite();
    void responses.stream("late", 10, retry.write);
    expect(retry.calls()).toBe(1);
  });
});
