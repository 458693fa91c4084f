// The event stream's `sendSoon`: calls close together are one event, later ones another.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EventStream } from "./event-stream.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A stream on loopback and everything a client of it has received so far. */
async function listening(events: EventStream): Promise<{ received: () => string }> {
  const server = http.createServer((_request, response) => events.attach(response, { current: null }));
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  let text = "";
  const client = http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const [response] = (await once(client, "response")) as [http.IncomingMessage];
  response.on("data", (chunk: Buffer) => (text += chunk.toString()));
  // The hello is written first: once it is here, the client is attached.
  while (!text.includes("event: hello")) await new Promise((resolve) => setTimeout(resolve, 5));
  return { received: () => text };
}

const count = (text: string, event: string) => text.split(`event: ${event}\n`).length - 1;

describe("EventStream.sendSoon", () => {
  it("sends one event for the calls made close together, with the data of when it is sent, and another for a later call", async () => {
    const events = new EventStream();
    const { received } = await listening(events);
    let files = 1;
    for (let call = 0; call < 20; call += 1) events.sendSoon("indexed", () => ({ files }), 50);
    files = 7;
    while (count(received(), "indexed") === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(received()).toMatch(/event: indexed\ndata: \{"files": ?7\}/);
    events.sendSoon("indexed", () => ({ files: 8 }), 50);
    while (count(received(), "indexed") < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(count(received(), "indexed")).toBe(2);
    events.close();
  });
});
