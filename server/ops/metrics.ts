/**
 * Prometheus `/metrics` (prom-client): requests by route and status, latency histograms,
 * cache hits and bytes, what the remote store was asked and sent, index progress, and the
 * process's own figures. Behind its own bearer token (`--metrics-token-file`): a scrape
 * needs no sign-in, and a viewer's cookie does not open it. Without a token the route is
 * not there (404), as in the local default.
 *
 * Routes are labelled by their pattern (`routeOptions.url`, e.g. `/api/files/*`), never the
 * URL asked for: a label per file or per token would be unbounded, and would write run
 * names and query strings into the metrics.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Source } from "../../shared/remote/index.js";
import { ServerError } from "../http/errors.js";
import type { ArchiveCache } from "../library/archive-cache.js";
import type { ComputedResponses } from "../library/computed-responses.js";
import type { SnapshotDirectory } from "../library/snapshot-directory.js";
import type { MemoryBudget } from "../library/weighted-cache.js";

/** What the figures are read from, at each scrape (nothing is counted twice on the request path). */
export interface MetricsSources {
  readonly memory: MemoryBudget;
  readonly directory: SnapshotDirectory;
  readonly archives: ArchiveCache;
  readonly computed: ComputedResponses;
  /** The remote store, or null for a local folder. */
  readonly store: Source | null;
}

export interface MetricsOptions {
  /** The bearer token a scrape must send; null: no `/metrics` route. */
  readonly token: string | null;
  readonly sources: MetricsSources;
}

/** A route label for requests no route matched (404s of unknown paths, the host check's refusals). */
const UNMATCHED = "(unmatched)";

/** Latency buckets (seconds): a cached answer takes ~1 ms, a first read from a store ~100 ms, a big diff seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** The request's route pattern, as the router matched it. */
export function routeLabel(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED;
}

/** A counter whose value is read from elsewhere at each scrape (prom-client counters only go up: reset, then set). */
function readCounter(registry: Registry, name: string, help: string, labelNames: string[], read: (set: (labels: Record<string, string>, value: number) => void) => void): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      read((labels, value) => this.inc(labels, value));
    },
  });
}

function readGauge(registry: Registry, name: string, help: string, labelNames: string[], read: (set: (labels: Record<string, string>, value: number) => void) => void): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      read((labels, value) => this.set(labels, value));
    },
  });
}

/** The registry of one app: its own (not prom-client's global one), so two apps in a process never mix. */
export function metricsRegistry(sources: MetricsSources): { registry: Registry; requests: Counter; latency: Histogram } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "wink_" });
  const requests = new Counter({ name: "wink_http_requests_total", help: "HTTP requests answered, by method, route pattern and status.", labelNames: ["method", "route", "status"], registers: [registry] });
  const latency = new Histogram({ name: "wink_http_request_duration_seconds", help: "Time to answer an HTTP request, by method and route pattern.", labelNames: ["method", "route"], buckets: LATENCY_BUCKETS, registers: [registry] });
  const { memory, directory, archives, computed, store } = sources;

  readCounter(registry, "wink_cache_hits_total", "Lookups a cache answered.", ["cache"], (set) => {
    set({ cache: "archive_index" }, archives.counts.indexHits);
    set({ cache: "archive_content" }, archives.counts.contentHits);
    set({ cache: "computed_response" }, computed.counts.hits);
    if (store !== null) set({ cache: "store_block" }, store.cache.stats.hits);
  });
  readCounter(registry, "wink_cache_misses_total", "Lookups a cache could not answer (read or computed then).", ["cache"], (set) => {
    set({ cache: "archive_index" }, archives.counts.indexMisses);
    set({ cache: "archive_content" }, archives.counts.contentMisses);
    set({ cache: "computed_response" }, computed.counts.misses);
    if (store !== null) set({ cache: "store_block" }, store.cache.stats.misses);
  });
  readGauge(registry, "wink_cache_bytes", "Bytes held: the shared memory budget's use (all caches), its session indexes, the store's block cache.", ["cache"], (set) => {
    set({ cache: "memory_budget" }, memory.used);
    set({ cache: "session_index" }, directory.indexBytes);
    if (store !== null) set({ cache: "store_block" }, store.cache.stats.bytes);
  });
  readGauge(registry, "wink_cache_budget_bytes", "The memory budget all caches share (--memory).", [], (set) => set({}, memory.bytes));

  if (store !== null) {
    readCounter(registry, "wink_store_requests_total", "Requests sent to the remote store (listings, heads, ranges).", [], (set) => set({}, store.stats.requests));
    readCounter(registry, "wink_store_received_bytes_total", "Body bytes received from the remote store.", [], (set) => set({}, store.stats.bytesReceived));
    readCounter(registry, "wink_store_retries_total", "Requests to the remote store retried after a failure.", [], (set) => set({}, store.stats.retries));
  }

  readGauge(registry, "wink_index_files", "Session files and bundles listed, by state: listed (all), indexed, failed.", ["state"], (set) => {
    const files = directory.files();
    set({ state: "listed" }, files.length);
    set({ state: "indexed" }, files.filter((record) => record.index !== null).length);
    set({ state: "failed" }, files.filter((record) => record.error !== null).length);
  });
  readGauge(registry, "wink_index_bytes", "Bytes the session indexes are counted for in the memory budget.", [], (set) => set({}, directory.indexBytes));

  return { registry, requests, latency };
}

const plugin: FastifyPluginAsync<MetricsOptions> = async (app, { token, sources }) => {
  if (token === null) return;
  const expected = digest(`Bearer ${token}`);
  const { registry, requests, latency } = metricsRegistry(sources);

  // Every request, this route included: the app's root hooks (fastify-plugin) see each answer once.
  app.addHook("onResponse", (request, reply, done) => {
    const route = routeLabel(request);
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", async (request, reply) => {
    // Compared as digests of equal length, in constant time: the answer's timing tells nothing of the token.
    const sent = request.headers.authorization;
    if (typeof sent !== "string" || !timingSafeEqual(digest(sent), expected)) {
      reply.header("www-authenticate", 'Bearer realm="wink-debug metrics"');
      throw new ServerError("WD_ERR_METRICS_TOKEN", "GET /metrics needs the bearer token of --metrics-token-file");
    }
    const text = await registry.metrics();
    return reply.header("cache-control", "no-store").type(registry.contentType).send(text);
  });
};

/** Registers `/metrics` and the request counters on the whole app (before the routes). */
export const metrics = fp(plugin, { name: "wink-metrics", fastify: "5.x" });
