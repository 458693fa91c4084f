/**
 * A loopback TCP proxy in front of a real server that cuts connections: the first `cuts`
 * connections are closed after `afterBytes` bytes of the server's answer (headers
 * included), later ones pass through. A real connection cut, as a flaky network or a store
 * restarting makes one, not a simulated error.
 */
import { type Socket, connect, createServer } from "node:net";

export interface CutProxy {
  /** http://127.0.0.1:PORT (no trailing slash). */
  readonly origin: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** `port`: listen there (a proxy started again where a closed one was: a store coming back); default any free port. */
export async function startCutProxy(target: { host: string; port: number }, options: { afterBytes: number; cuts?: number; port?: number }): Promise<CutProxy> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const cut = connections < (options.cuts ?? Number.POSITIVE_INFINITY);
    connections++;
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream);
    let sent = 0;
    upstream.on("data", (chunk: Buffer) => {
      if (!cut) {
        client.write(chunk);
        return;
      }
      const room = options.afterBytes - sent;
      if (room > 0) client.write(chunk.subarray(0, room));
      sent += chunk.length;
      if (sent >= options.afterBytes) {
        client.destroy();
        upstream.destroy();
      }
    });
    upstream.on("end", () => client.end());
    client.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
