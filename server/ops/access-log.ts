/**
 * `--log-format json`: one JSON line per answered request, written by Fastify's own logger
 * (pino), which is the served mode's audit trail: who (the signed-in user) opened what (the
 * run, from the `file` parameter), by which route, with which status and how long it took.
 *
 * A log line never holds a credential: the route is logged by its pattern, not the URL (a
 * sign-in token rides in a query string), no header is logged, and pino's redaction blanks
 * the Authorization, Cookie and Set-Cookie headers should anything log a request or reply
 * object (Fastify's own error lines do).
 */
import type { FastifyPluginAsync, FastifyRequest, FastifyServerOptions } from "fastify";
import { LogController } from "fastify";
import fp from "fastify-plugin";
import { routeLabel } from "./metrics.js";

/** Where pino may meet a credential; each is written as "[redacted]". */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers[\"x-forwarded-user\"]",
  "res.headers[\"set-cookie\"]",
  "headers.authorization",
  "headers.cookie",
];

/** A request as any log line shows it: method and route pattern only (never its URL, query or headers). */
function requestSummary(request: { method?: string; routeOptions?: { url?: string | undefined } }): { method: string; route: string } {
  return { method: request.method ?? "", route: request.routeOptions?.url ?? "(unmatched)" };
}

function replySummary(reply: { statusCode: number }): { status: number } {
  return { status: reply.statusCode };
}

/** Fastify's logger settings for `--log-format json`: info lines on stdout, its own request lines off (this plugin writes them). */
export function jsonLoggerOptions(stream?: NodeJS.WritableStream): Pick<FastifyServerOptions, "logController"> & { logger: NonNullable<FastifyServerOptions["logger"]> } {
  return {
    logController: new LogController({ disableRequestLogging: true }),
    logger: {
      level: "info",
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      serializers: { req: requestSummary, res: replySummary },
      ...(stream === undefined ? {} : { stream }),
    },
  };
}

/** A string parameter of the request's query, else null. */
function queryText(request: FastifyRequest, name: string): string | null {
  const query = request.query;
  if (typeof query !== "object" || query === null) return null;
  const value = (query as Record<string, unknown>)[name];
  return typeof value === "string" ? value : null;
}

const plugin: FastifyPluginAsync = async (app) => {
  app.addHook("onResponse", (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        route: routeLabel(request),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        user: request.viewerUser?.name ?? null,
        // The run opened: `file`, or a compare's two sides.
        file: queryText(request, "file"),
        ...(queryText(request, "base_file") === null ? {} : { base_file: queryText(request, "base_file"), target_file: queryText(request, "target_file") }),
      },
      "request",
    );
    done();
  });
};

/** Logs every answered request as one line (register on the whole app, before the routes). */
export const accessLog = fp(plugin, { name: "wink-access-log", fastify: "5.x" });
