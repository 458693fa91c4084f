/**
 * A real HTTP server for tests: Debian's nginx in the foreground on a free loopback port,
 * serving a folder with Range support and JSON directory listings, plus locations that
 * produce the failures a remote store can have:
 *
 * - `/forbidden/…` → 403, `/gone/…` → 404 (nginx `return`).
 * - `/busy/…` → 503 with `Retry-After: 0`, always (a store that stays throttled).
 * - `/throttled/…` → served from the same folder through `limit_req` (2 requests/s, no
 *   burst): bursts get 503 — real rate limiting that a retry with backoff gets through.
 * - `/slow/…` → served at 1 KiB/s (`limit_rate`): a stalled transfer for time budgets.
 * - `/dripping/…` → the folder, but its `slow.jsonl` at a byte a second without ranges
 *   (`limit_rate 1; max_ranges 0`): one object that never finishes.
 * - `/private/…` → needs Basic auth (user `reader`, password `opensesame`).
 * - `/plain/…` → the same folder without directory listings (for index files).
 * - `/s3-slowdown/…` → 503 with S3's SlowDown error document: a stand-in S3 endpoint for
 *   throttling, which radosgw 16 cannot produce (it has no rate limits).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import * as https from "node:https";
import path from "node:path";
import { DaemonGroup, freePort, requireCommands } from "./daemons.test-support.js";

export interface NginxServer {
  /** Base URL ending in "/" (the served folder's root). */
  readonly url: string;
  readonly port: number;
  /** The server's temp dir (config, logs, the pid list the watchdog reads). */
  readonly dir: string;
  stop(): Promise<void>;
}

export const PRIVATE_USER = "reader";
export const PRIVATE_PASSWORD = "opensesame";
/** htpasswd line for PRIVATE_USER (apr1 hash of PRIVATE_PASSWORD made with `openssl passwd -apr1`). */
const HTPASSWD = `${PRIVATE_USER}:$apr1$wink$WrcOFnk6NDuZqsBHRjvOU.\n`;

/**
 * An nginx.conf around `http` (the http block's own directives): in the foreground, one
 * process, as root, with its pid, logs and every temp path in `dir`, so tests run nginx side
 * by side without touching /var.
 */
export function nginxConfig(dir: string, http: string, options: { workerConnections?: number; accessLog?: boolean } = {}): string {
  return `daemon off;
master_process off;
user root;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections ${options.workerConnections ?? 256}; }
http {
  access_log ${options.accessLog === true ? `${dir}/access.log` : "off"};
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
${http}}
`;
}

function config(dir: string, root: string, port: number): string {
  return nginxConfig(
    dir,
    `  types { application/zip zip; application/x-ndjson jsonl; application/json json; }
  default_type application/octet-stream;
  sendfile on;
  limit_req_zone $binary_remote_addr zone=throttle:1m rate=2r/s;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { autoindex on; autoindex_format json; }
    location /forbidden/ { return 403; }
    location /gone/ { return 404; }
    location /busy/ { add_header Retry-After 0 always; return 503; }
    location /throttled/ { alias ${root}/; limit_req zone=throttle; limit_req_status 503; autoindex on; autoindex_format json; }
    location /slow/ { alias ${root}/; limit_rate 1k; }
    location /dripping/ { alias ${root}/; autoindex on; autoindex_format json; }
    location = /dripping/slow.jsonl { alias ${root}/slow.jsonl; limit_rate 1; max_ranges 0; }
    location /private/ { alias ${root}/; auth_basic "runs"; auth_basic_user_file ${dir}/htpasswd; autoindex on; autoindex_format json; }
    location /plain/ { alias ${root}/; autoindex off; }
    location /redirecting/ { alias ${root}/; autoindex on; autoindex_format json; }
    location /redirecting/moved/ { return 301 http://elsewhere.invalid/moved/; }
    location /s3-slowdown/ { default_type application/xml; add_header x-amz-request-id slowdown always; return 503 '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>'; }
  }
`,
  );
}

/** Starts nginx serving `root` (an absolute folder) within `timeoutMs` (default 30 s). */
export async function startNginx(root: string, options: { timeoutMs?: number } = {}): Promise<NginxServer> {
  requireCommands(["nginx"], "Debian package nginx");
  const group = new DaemonGroup("nginx");
  try {
    const port = await freePort();
    const conf = path.join(group.dir, "nginx.conf");
    writeFileSync(conf, config(group.dir, path.resolve(root), port));
    writeFileSync(path.join(group.dir, "htpasswd"), HTPASSWD);
    group.spawn("nginx", ["-p", group.dir, "-c", conf, "-e", path.join(group.dir, "error.log")], "nginx");
    const url = `http://127.0.0.1:${port}/`;
    await group.waitFor("nginx", async () => (await fetch(`${url}gone/`, { signal: AbortSignal.timeout(1000) })).status === 404, options.timeoutMs ?? 30_000);
    return { url, port, dir: group.dir, stop: () => group.stop() };
  } catch (error) {
    await group.stop();
    throw error;
  }
}

/** A private CA and a certificate it signed for 127.0.0.1 and localhost, made by openssl in `dir`. */
export interface TestCertificates {
  /** The CA's certificate (PEM): what a client must trust. */
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** Makes a private CA and a server certificate for loopback with Debian's openssl (EC P-256, valid 2 days). */
export function makeTestCertificates(dir: string): TestCertificates {
  requireCommands(["openssl"], "Debian package openssl");
  const file = (name: string): string => path.join(dir, name);
  const openssl = (args: string[]): void => {
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  };
  const curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(["req", "-x509", ...curve, "-keyout", file("ca.key"), "-out", file("ca.pem"), "-days", "2", "-subj", "/CN=wink-debug test CA"]);
  openssl(["req", ...curve, "-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1"]);
  writeFileSync(file("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
  openssl(["x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial", "-out", file("server.pem"), "-days", "2", "-extfile", file("server.ext")]);
  return { caFile: file("ca.pem"), certFile: file("server.pem"), keyFile: file("server.key") };
}

/**
 * nginx serving `root` over HTTPS with `certificates` (ranges, JSON listings, as `startNginx`
 * does at its root), on a free loopback port. Readiness is asked with the CA trusted.
 */
export async function startTlsNginx(root: string, certificates: TestCertificates, options: { timeoutMs?: number } = {}): Promise<NginxServer> {
  requireCommands(["nginx"], "Debian package nginx");
  const group = new DaemonGroup("nginx-tls");
  try {
    const port = await freePort();
    const conf = path.join(group.dir, "nginx.conf");
    writeFileSync(
      conf,
      nginxConfig(
        group.dir,
        `  types { application/zip zip; application/x-ndjson jsonl; application/json json; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${certificates.certFile};
    ssl_certificate_key ${certificates.keyFile};
    root ${path.resolve(root)};
    location / { autoindex on; autoindex_format json; }
  }
`,
      ),
    );
    group.spawn("nginx", ["-p", group.dir, "-c", conf, "-e", path.join(group.dir, "error.log")], "nginx");
    const url = `https://127.0.0.1:${port}/`;
    const ca = readFileSync(certificates.caFile);
    const answers = (): Promise<boolean> =>
      new Promise((resolve) => {
        const request = https.get(url, { ca, timeout: 1000 }, (response) => {
          response.resume();
          resolve(response.statusCode === 200);
        });
        request.on("error", () => resolve(false));
        request.on("timeout", () => request.destroy());
      });
    await group.waitFor("nginx", answers, options.timeoutMs ?? 30_000);
    return { url, port, dir: group.dir, stop: () => group.stop() };
  } catch (error) {
    await group.stop();
    throw error;
  }
}
