/**
 * A remote target on the command line, the one way for the viewer (`wink-debug URL`) and the
 * commands that read every run (`wink-debug failures`, `wink-debug index`): the options that
 * reach a store (S3's endpoint, profile, region and addressing, `--cache-dir`, `--cache-size`,
 * `--store-timeout`) checked against the target, and a store's failure as exit 4 with a hint.
 */
import path from "node:path";
import { SourceError } from "../shared/errors.js";
import { DEFAULT_DISK_CACHE_BYTES, isRemoteTarget, redactUrl } from "../shared/remote/index.js";
import type { RemoteTargetOptions } from "./library/open-target.js";

const MIB = 1024 * 1024;

/** What `parseArgs` needs to take the remote options (spread into a command's own options). */
export const REMOTE_CLI_OPTIONS = {
  "cache-dir": { type: "string" },
  "cache-size": { type: "string" },
  "store-timeout": { type: "string" },
  "endpoint-url": { type: "string" },
  profile: { type: "string" },
  region: { type: "string" },
  "path-style": { type: "boolean" },
  "no-path-style": { type: "boolean" },
} as const;

/** The values `parseArgs` gives for {@link REMOTE_CLI_OPTIONS}, and the command's `--no-cache`. */
export interface RemoteCliValues {
  readonly "cache-dir"?: string;
  readonly "cache-size"?: string;
  readonly "store-timeout"?: string;
  readonly "endpoint-url"?: string;
  readonly profile?: string;
  readonly region?: string;
  readonly "path-style"?: boolean;
  readonly "no-path-style"?: boolean;
  readonly "no-cache"?: boolean;
}

/** The targets and options of a remote store for the commands that read every run (`failures`, `index`). */
export const REMOTE_COMMAND_USAGE = `Remote stores (read by range requests, as the viewer reads them; nothing is written to them):
  s3://bucket/prefix/      an S3 bucket or prefix (or an S3-compatible store)
  https://host/runs/       an HTTP folder: nginx JSON listings (autoindex_format json)
                           or a wink-index.json at its root; user:pass@ for Basic auth
  --cache-dir DIR          keep the run index (and the blocks read) in DIR, created 0700, as
                           the viewer's --cache-dir does: a later command or viewer with the
                           same DIR reads only new and changed runs. Without it nothing is
                           kept. DIR must be yours and not group/world-writable (exit 2)
  --cache-size MIB         most MiB kept in --cache-dir (default ${DEFAULT_DISK_CACHE_BYTES / MIB})
  --store-timeout SECONDS  the store's time budget per request (default 30)
`;

/** How S3 credentials are found, and the S3 options: one text for every usage that takes them. */
export const S3_OPTIONS_USAGE = `S3 options (credentials come the way AWS tools take them: AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ~/.aws/config and ~/.aws/credentials, SSO,
credential_process, instance roles; they are never printed nor sent to the browser):
  --endpoint-url URL  an S3-compatible endpoint (Ceph, MinIO, R2…), like the AWS CLI's
                   (also AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, endpoint_url in the profile)
  --profile NAME   a profile of the shared config files (default: AWS_PROFILE, else default)
  --region REGION  the bucket's region (default: the profile's, else us-east-1)
  --path-style     address buckets as ENDPOINT/bucket/key (the default with --endpoint-url)
  --no-path-style  address buckets as bucket.ENDPOINT/key (virtual-hosted)
`;

/** A target as it may be shown: a URL loses its user, password, query and fragment. */
export function shownTarget(target: string): string {
  return /^[a-z0-9]+:\/\//i.test(target) && !/^s3:/i.test(target) ? redactUrl(target) : target;
}

/**
 * The options that reach `target`'s store, from the command line; a remote option given for
 * a target it is not for (an S3 option for an HTTP folder, `--cache-dir` for a local one),
 * or one that is malformed or contradicts another, is the error `refuse` makes of why (the
 * command's exit 2).
 */
export function remoteOptionsFromCli(values: RemoteCliValues, target: string, refuse: (message: string) => Error): RemoteTargetOptions {
  const remote = isRemoteTarget(target);
  const s3 = /^s3:\/\//i.test(target);
  for (const name of ["cache-dir", "cache-size"] as const) {
    if (values[name] !== undefined && !remote) throw refuse(`--${name} is for s3:// and http(s):// targets, not ${shownTarget(target)}`);
  }
  const cacheDir = values["cache-dir"];
  if (cacheDir === "") throw refuse("--cache-dir must name a directory");
  if (values["no-cache"] === true && cacheDir !== undefined) throw refuse("--no-cache and --cache-dir contradict each other");
  const cacheSizeText = values["cache-size"];
  if (cacheSizeText !== undefined && cacheDir === undefined) throw refuse("--cache-size needs --cache-dir");
  if (cacheSizeText !== undefined && (!/^\d{1,7}$/.test(cacheSizeText) || Number(cacheSizeText) < 1)) throw refuse(`--cache-size must be a whole number of MiB, at least 1, got ${cacheSizeText}`);
  const timeoutText = values["store-timeout"];
  if (timeoutText !== undefined && !remote) throw refuse(`--store-timeout is for s3:// and http(s):// targets, not ${shownTarget(target)}`);
  if (timeoutText !== undefined && (!/^\d{1,5}$/.test(timeoutText) || Number(timeoutText) < 1)) throw refuse(`--store-timeout must be a whole number of seconds, at least 1, got ${timeoutText}`);
  const store = {
    ...(timeoutText === undefined ? {} : { timeoutMs: Number(timeoutText) * 1000 }),
    ...(cacheDir === undefined ? {} : { cacheDir: path.resolve(cacheDir), ...(cacheSizeText === undefined ? {} : { cacheBytes: Number(cacheSizeText) * MIB }) }),
  };
  for (const name of ["endpoint-url", "profile", "region", "path-style", "no-path-style"] as const) {
    if (values[name] !== undefined && !s3) throw refuse(`--${name} is for s3:// targets, not ${shownTarget(target)}`);
  }
  if (values["path-style"] === true && values["no-path-style"] === true) throw refuse("--path-style and --no-path-style contradict each other");
  const endpoint = values["endpoint-url"];
  if (endpoint !== undefined && !/^https?:\/\/[^/?#]+/i.test(endpoint)) throw refuse(`--endpoint-url must be an http:// or https:// URL, got ${shownTarget(endpoint)}`);
  if (!s3) return store;
  const pathStyle = values["path-style"] === true ? true : values["no-path-style"] === true ? false : undefined;
  return {
    ...store,
    s3: {
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(values.profile === undefined ? {} : { profile: values.profile }),
      ...(values.region === undefined ? {} : { region: values.region }),
      ...(pathStyle === undefined ? {} : { forcePathStyle: pathStyle }),
    },
  };
}

/** What to do about a store's failure. */
const STORE_HINTS: Record<string, string> = {
  E_SOURCE_CREDENTIALS_MISSING: "Set credentials the AWS way (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or --profile, ~/.aws/credentials), or add user:pass@ to an HTTP URL.",
  E_SOURCE_CREDENTIALS_EXPIRED: "Refresh the credentials (for example: aws sso login --profile NAME) and start again.",
  E_SOURCE_CREDENTIALS_INVALID: "Check the access key and secret (or the URL's user and password).",
  E_SOURCE_FORBIDDEN: "These credentials may not read that bucket or folder.",
  E_SOURCE_NOT_FOUND: "Check the bucket and prefix (or the URL); with --endpoint-url, check the endpoint too.",
  E_SOURCE_UNREACHABLE: "Check the URL or --endpoint-url, and the network.",
  E_SOURCE_TIMEOUT: "The store did not answer in time; check the endpoint and the network.",
  E_SOURCE_THROTTLED: "The store keeps asking to slow down; try again in a moment.",
};

/** Exit code and message for a failure to open the target: a store's own failures get exit 4, their code and a hint; anything else exit 2. */
export function openFailure(error: unknown): { code: number; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof SourceError)) return { code: 2, message };
  const hint = STORE_HINTS[error.code];
  return { code: 4, message: `${message} [${error.code}]${hint === undefined ? "" : `\n  ${hint}`}` };
}
