/**
 * Real nginx as a load balancer in front of several viewer instances on loopback: one
 * upstream balanced by the run a request names (so one instance parses a run once; a request
 * that names none goes round robin), a failed instance skipped for the next
 * (`proxy_next_upstream`), the event stream unbuffered — the set-up docs/deploy.md
 * describes, at the root path.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { DaemonGroup, freePort, requireCommands } from "../../shared/remote/test-servers/daemons.test-support.js";
import { nginxConfig } from "../../shared/remote/test-servers/nginx.test-support.js";

export interface ReverseProxy {
  readonly url: string;
  stop(): Promise<void>;
}

function config(dir: string, port: number, upstreams: readonly number[]): string {
  return nginxConfig(
    dir,
    `  upstream wink {
    hash $arg_file$arg_base_file consistent;
${upstreams.map((upstream) => `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=10s;`).join("\n")}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_next_upstream error timeout http_502 http_503;
    proxy_connect_timeout 2s;
    location / { proxy_pass http://wink; }
    location = /api/events { proxy_pass http://wink; proxy_buffering off; proxy_read_timeout 1h; }
  }
`,
    { workerConnections: 1024 },
  );
}

/** Starts nginx on a free loopback port, balancing over the instances on `upstreams` (loopback ports). */
export async function startReverseProxy(upstreams: readonly number[]): Promise<ReverseProxy> {
  requireCommands(["nginx"], "Debian package nginx");
  const group = new DaemonGroup("nginx-lb");
  try {
    const port = await freePort();
    const conf = path.join(group.dir, "nginx.conf");
    writeFileSync(conf, config(group.dir, port, upstreams));
    group.spawn("nginx", ["-p", group.dir, "-c", conf, "-e", path.join(group.dir, "error.log")], "nginx");
    const url = `http://127.0.0.1:${port}/`;
    await group.waitFor("nginx", async () => (await fetch(`${url}healthz`, { signal: AbortSignal.timeout(1000) })).status === 200, 30_000);
    return { url, stop: () => group.stop() };
  } catch (error) {
    await group.stop();
    throw error;
  }
}
