/**
 * One entry point from what a person types to a source: `s3://bucket/prefix`, an
 * `http(s)://` URL of a folder, or a local folder (a path or a `file://` URL).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SourceDriver } from "./driver.js";
import { type HttpDriverOptions, createHttpDriver } from "./http-driver.node.js";
import { createLocalDriver } from "./local-driver.node.js";
import { type S3DriverOptions, createS3Driver } from "./s3-driver.node.js";
import { Source, type SourceOptions } from "./source.js";

export interface OpenSourceOptions extends SourceOptions {
  /** For s3:// targets: endpoint, region, profile, path style, explicit credentials. */
  readonly s3?: Omit<S3DriverOptions, "url">;
  /** For http(s):// targets: extra headers, listing mode. */
  readonly http?: Omit<HttpDriverOptions, "url">;
}

/** Whether `target` names a remote store rather than a local path. */
export function isRemoteTarget(target: string): boolean {
  return /^(s3|https?):\/\//i.test(target);
}

/** The driver for `target` (see the module comment for the forms). */
export function driverFor(target: string, options: OpenSourceOptions = {}): SourceDriver {
  if (/^s3:\/\//i.test(target)) return createS3Driver({ ...options.s3, url: target });
  if (/^https?:\/\//i.test(target)) return createHttpDriver({ ...options.http, url: target });
  const root = /^file:\/\//i.test(target) ? fileURLToPath(target) : path.resolve(target);
  return createLocalDriver({ root });
}

export function openSource(target: string, options: OpenSourceOptions = {}): Source {
  return new Source(driverFor(target, options), options);
}
