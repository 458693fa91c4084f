/**
 * An S3 bucket (or an S3-compatible store: Ceph radosgw, MinIO, R2…) as a source, through
 * the AWS SDK for JavaScript v3.
 *
 * Credentials and endpoints come the way AWS tools take them: the SDK's default provider
 * chain (environment, shared config and credentials files with profiles, SSO,
 * credential_process, web identity, container and instance metadata), `profile` like
 * `--profile`, `endpoint` like `--endpoint-url` (also AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL
 * and `endpoint_url` in the profile, which the SDK reads itself), path-style addressing
 * (default on with a custom endpoint, since S3-compatible stores rarely have wildcard DNS).
 * The region falls back to us-east-1 when none is configured; on AWS the SDK follows a
 * bucket's region redirect.
 *
 * The SDK's own retries are off (one attempt per call): `Source` retries every driver the
 * same way. Nothing credential-bearing is put into errors: messages are ours, with the S3
 * error code and status, and the SDK error (whose fields can echo the access key id and
 * the string that was signed) is not kept as the cause.
 *
 * The SDK module is loaded on first use, so the rest of the library never pays for it.
 */
import type * as Sdk from "@aws-sdk/client-s3";
import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import { SourceError } from "../errors.js";
import type { ByteRange, DriverBody, DriverListOptions, ListPage, ObjectInfo, DriverReadOptions, SourceDriver, DriverStatOptions } from "./driver.js";
import { connectionError, statusError } from "./http-status.js";
import { keyProblem } from "./keys.js";
import { answersRange, noChunks, parseContentRange, rangeHeader, unsatisfiable } from "./ranges.js";

type SdkModule = typeof Sdk;

export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface S3DriverOptions {
  /** The root: `s3://bucket` or `s3://bucket/prefix` (a trailing "/" is implied). */
  readonly url: string;
  /** An S3-compatible endpoint, like the AWS CLI's `--endpoint-url`. */
  readonly endpoint?: string;
  readonly region?: string;
  /** A profile of the shared config files, like `--profile` (else AWS_PROFILE, else "default"). */
  readonly profile?: string;
  /** Path-style URLs (`endpoint/bucket/key`); default: on when an endpoint is given. */
  readonly forcePathStyle?: boolean;
  /** Explicit credentials; without them the SDK's default provider chain is used. */
  readonly credentials?: S3Credentials;
  /** Connection set-up budget (ms); the whole request's budget is `Source`'s. */
  readonly connectTimeoutMs?: number;
}

const DEFAULT_REGION = "us-east-1";
const THROTTLING_CODES = new Set(["SlowDown", "Throttling", "ThrottlingException", "ThrottledException", "RequestLimitExceeded", "TooManyRequests", "TooManyRequestsException", "RequestThrottled", "RequestThrottledException"]);
const EXPIRED_CODES = new Set(["ExpiredToken", "ExpiredTokenException", "TokenRefreshRequired", "RequestExpired"]);
const INVALID_CREDENTIAL_CODES = new Set(["InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "InvalidClientTokenId", "UnrecognizedClientException", "AuthorizationHeaderMalformed"]);

function parseS3Url(input: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/?#]+)(?:\/([^?#]*))?$/.exec(input);
  if (match === null) throw new SourceError("E_SOURCE_INVALID", `Not an S3 URL (s3://bucket/prefix): ${input}`, { reason: "url" });
  const bucket = match[1] as string;
  let prefix = match[2] ?? "";
  if (prefix !== "" && !prefix.endsWith("/")) prefix += "/";
  if (prefix !== "" && keyProblem(prefix.slice(0, -1)) !== null) {
    throw new SourceError("E_SOURCE_INVALID", `Invalid prefix in ${input}: ${keyProblem(prefix.slice(0, -1)) ?? ""}`, { reason: "url" });
  }
  return { bucket, prefix };
}

interface SdkError {
  readonly name?: string;
  readonly message?: string;
  readonly Code?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly $response?: { readonly headers?: Record<string, string | undefined> };
}

function asSdkError(error: unknown): SdkError {
  return typeof error === "object" && error !== null ? (error as SdkError) : {};
}

export class S3Driver implements SourceDriver {
  readonly name = "s3";
  readonly capabilities = { recursiveList: true, listEtags: true };
  readonly location: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private clientPromise: Promise<{ sdk: SdkModule; client: S3Client }> | null = null;

  constructor(private readonly options: S3DriverOptions) {
    const { bucket, prefix } = parseS3Url(options.url);
    this.bucket = bucket;
    this.prefix = prefix;
    this.location = `s3://${bucket}/${prefix}`;
  }

  describe(key: string): string {
    return `${this.location}${key}`;
  }

  private client(): Promise<{ sdk: SdkModule; client: S3Client }> {
    this.clientPromise ??= this.createClient();
    return this.clientPromise;
  }

  private async createClient(): Promise<{ sdk: SdkModule; client: S3Client }> {
    const sdk = await import("@aws-sdk/client-s3");
    const endpoint = this.options.endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
    const config: S3ClientConfig = {
      maxAttempts: 1,
      forcePathStyle: this.options.forcePathStyle ?? endpoint !== undefined,
      followRegionRedirects: endpoint === undefined,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      requestHandler: { connectionTimeout: this.options.connectTimeoutMs ?? 10_000 },
      ...(this.options.endpoint === undefined ? {} : { endpoint: this.options.endpoint }),
      ...(this.options.profile === undefined ? {} : { profile: this.options.profile }),
      ...(this.options.credentials === undefined ? {} : { credentials: { ...this.options.credentials } }),
    };
    let client = new sdk.S3Client({ ...config, ...(this.options.region === undefined ? {} : { region: this.options.region }) });
    if (this.options.region === undefined) {
      try {
        await client.config.region();
      } catch {
        // No region in the environment or the profile: S3-compatible stores ignore it, and
        // AWS answers a wrong one with a redirect the client follows.
        client.destroy();
        client = new sdk.S3Client({ ...config, region: DEFAULT_REGION });
      }
    }
    return { sdk, client };
  }

  async close(): Promise<void> {
    if (this.clientPromise === null) return;
    const { client } = await this.clientPromise;
    client.destroy();
  }

  async list(prefix: string, options: DriverListOptions): Promise<ListPage> {
    const { sdk, client } = await this.client();
    const answer = await this.send(() =>
      client.send(
        new sdk.ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: this.prefix + prefix,
        MaxKeys: options.limit,
        ...(options.delimiter === undefined ? {} : { Delimiter: options.delimiter }),
        ...(options.cursor === undefined ? {} : { ContinuationToken: options.cursor }),
        }),
        { abortSignal: options.signal },
      ),
    ).catch((error: unknown) => {
      throw this.mapError(error, this.describe(prefix), undefined);
    });
    const objects: ObjectInfo[] = [];
    const prefixes: string[] = [];
    let skipped = 0;
    for (const content of answer.Contents ?? []) {
      const key = (content.Key ?? "").slice(this.prefix.length);
      // "folder/" marker objects (as the S3 console creates) are not objects to show.
      if (key.endsWith("/") && (content.Size ?? 0) === 0) continue;
      if (keyProblem(key) !== null) skipped++;
      else objects.push({ key, size: content.Size ?? 0, etag: content.ETag ?? null, mtimeMs: content.LastModified?.getTime() ?? null });
    }
    for (const common of answer.CommonPrefixes ?? []) {
      const folder = (common.Prefix ?? "").slice(this.prefix.length);
      if (keyProblem(folder.slice(0, -1)) !== null) skipped++;
      else prefixes.push(folder);
    }
    return { objects, prefixes, cursor: answer.IsTruncated === true ? (answer.NextContinuationToken ?? null) : null, skipped };
  }

  async stat(key: string, options: DriverStatOptions = {}): Promise<ObjectInfo | null> {
    const { sdk, client } = await this.client();
    try {
      const head = await this.send(() =>
        client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, ...(options.ifNoneMatch === undefined ? {} : { IfNoneMatch: options.ifNoneMatch }) }), {
          abortSignal: options.signal,
        }),
      );
      return { key, size: head.ContentLength ?? 0, etag: head.ETag ?? null, mtimeMs: head.LastModified?.getTime() ?? null };
    } catch (error) {
      if (asSdkError(error).$metadata?.httpStatusCode === 304) return null;
      throw this.mapError(error, this.describe(key), key);
    }
  }

  async read(key: string, range: ByteRange, options: DriverReadOptions = {}): Promise<DriverBody> {
    const { sdk, client } = await this.client();
    const url = this.describe(key);
    const expected = options.etag ?? null;
    let answer;
    try {
      answer = await this.send(() =>
        client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Range: rangeHeader(range), ...(expected === null ? {} : { IfMatch: expected }) }), {
          abortSignal: options.signal,
        }),
      );
    } catch (error) {
      const status = asSdkError(error).$metadata?.httpStatusCode;
      if ((status === 416 || asSdkError(error).name === "InvalidRange") && "suffix" in range) {
        // radosgw answers a suffix of an empty object with 416 (nginx with 200): ask its size.
        const info = await this.stat(key, { ...(options.signal === undefined ? {} : { signal: options.signal }) });
        if (info !== null && info.size === 0) {
          if (expected !== null && info.etag !== expected) throw this.changed(url, key, expected, info.etag);
          return { offset: 0, length: 0, size: 0, etag: info.etag, mtimeMs: info.mtimeMs, chunks: noChunks(), cancel: () => undefined };
        }
      }
      if (status === 416 || asSdkError(error).name === "InvalidRange") throw unsatisfiable(url, key, range, null);
      throw this.mapError(error, url, key, expected);
    }
    const stream = answer.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
    const cancel = (): void => stream?.destroy?.();
    const etag = answer.ETag ?? null;
    if (expected !== null && etag !== expected) {
      cancel();
      throw this.changed(url, key, expected, etag);
    }
    const got = parseContentRange(answer.ContentRange);
    if (got === null || !answersRange(range, got)) {
      cancel();
      throw new SourceError("E_SOURCE_FAILED", `${url} answered ${rangeHeader(range)} with Content-Range ${answer.ContentRange ?? "(none)"}`, { url, key });
    }
    return { offset: got.offset, length: got.length, size: got.size, etag, mtimeMs: answer.LastModified?.getTime() ?? null, chunks: stream ?? noChunks(), cancel };
  }

  /**
   * `client.send`, with a better reason when the provider chain finds no credentials: the
   * chain moves past a profile whose credentials are expired (credential_process, SSO) and
   * ends with "Could not load credentials from any providers", so the profile is asked
   * again on its own to say what is wrong with it.
   */
  private async send<Output>(request: () => Promise<Output>): Promise<Output> {
    try {
      return await request();
    } catch (error) {
      const sdkError = asSdkError(error);
      const profile = this.options.profile ?? process.env.AWS_PROFILE;
      if (sdkError.name !== "CredentialsProviderError" || this.options.credentials !== undefined || profile === undefined) throw error;
      const { fromIni } = await import("@aws-sdk/credential-provider-ini");
      try {
        await fromIni({ profile, ignoreCache: true })();
      } catch (profileError) {
        const reason = asSdkError(profileError).message;
        if (reason !== undefined && reason !== "") throw Object.assign(new Error(`${sdkError.message ?? ""}; profile ${profile}: ${reason}`), { name: "CredentialsProviderError" });
      }
      throw error;
    }
  }

  private changed(url: string, key: string, expected: string, actual: string | null): SourceError {
    return new SourceError("E_SOURCE_CHANGED", `${url} changed since it was opened (ETag ${actual ?? "none"}, expected ${expected}); reopen it`, { url, key, expected, actual });
  }

  /** An SDK or provider error as a source error; never keeps the SDK error itself. */
  private mapError(error: unknown, url: string, key: string | undefined, expected: string | null = null): SourceError {
    if (error instanceof SourceError) return error;
    const sdkError = asSdkError(error);
    const name = sdkError.name ?? "";
    const message = sdkError.message ?? "";
    const status = sdkError.$metadata?.httpStatusCode;
    const code = sdkError.Code ?? name;
    const keyData = key === undefined ? {} : { key };
    if (name === "AbortError") throw error; // the caller's own abort (or time budget): Source names it
    if (status === undefined) {
      if (name === "CredentialsProviderError" || /credential/i.test(message)) {
        // Provider messages name profiles and files, never secrets.
        if (/expired/i.test(message)) {
          return new SourceError("E_SOURCE_CREDENTIALS_EXPIRED", `The credentials for ${this.location} have expired (${message}); refresh them and retry`, { url, ...keyData });
        }
        return new SourceError("E_SOURCE_CREDENTIALS_MISSING", `No credentials for ${this.location}: ${message} (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run aws configure / aws sso login)`, {
          url,
          ...keyData,
        });
      }
      const unreachable = connectionError(error, url, key);
      if (unreachable !== null) return unreachable;
      if (name === "TimeoutError") return new SourceError("E_SOURCE_TIMEOUT", `Connecting to the store for ${url} timed out`, { url, ...keyData, retryable: true });
      return new SourceError("E_SOURCE_FAILED", `Request for ${url} failed: ${name || "error"}`, { url, ...keyData });
    }
    const data = { url, ...keyData, status, storeCode: code };
    if (status === 412 || code === "PreconditionFailed") return this.changed(url, key ?? "", expected ?? "(none)", null);
    if (EXPIRED_CODES.has(code)) return new SourceError("E_SOURCE_CREDENTIALS_EXPIRED", `The credentials for ${this.location} have expired (${status} ${code}); refresh them and retry`, data);
    if (INVALID_CREDENTIAL_CODES.has(code)) return new SourceError("E_SOURCE_CREDENTIALS_INVALID", `The store rejected the credentials for ${url} (${status} ${code})`, data);
    if (code === "NoSuchBucket") return new SourceError("E_SOURCE_NOT_FOUND", `No such bucket: ${this.bucket} (for ${url})`, { ...data, reason: "bucket" });
    if (THROTTLING_CODES.has(code) && status !== 503 && status !== 429) {
      return new SourceError("E_SOURCE_THROTTLED", `The store asked us to slow down reading ${url} (${status} ${code})`, { ...data, retryable: true, retryAfterMs: null });
    }
    return statusError({ url, ...keyData, status, storeCode: code, retryAfter: sdkError.$response?.headers?.["retry-after"] ?? null, authenticated: true });
  }
}

export function createS3Driver(options: S3DriverOptions): S3Driver {
  return new S3Driver(options);
}

