/**
 * Sources: local folders, HTTP servers and S3 buckets read the same way — listings with
 * prefix, delimiter and pages; ranged reads pinned to a version by its ETag; retries,
 * time budgets and typed failures; random access for ZIP central directories; JSONL line
 * indexes built newest line first. See docs/remote-sources.md.
 */
export type { ByteRange, DriverBody, DriverCapabilities, DriverListOptions, ListPage, ObjectInfo, DriverReadOptions, SkippedFolder, SourceDriver, DriverStatOptions } from "./driver.js";
export { MAX_KEY_BYTES, checkKey, checkPrefix, compareKeys, keyProblem } from "./keys.js";
export { type Folder, type FolderEntry, type ReadFolder, listByWalking, listFromObjects } from "./listing.js";
export { INDEX_FILE_NAME, parseIndexFile, renderIndexFile } from "./index-file.js";
export { DEFAULT_RANGE_CACHE_BYTES, RangeCache, type RangeCacheOptions } from "./range-cache.js";
export type { BlockStore } from "./block-store.js";
export { ByteGate, type ByteGateOptions, type ReadGate } from "./read-gate.js";
export { DEFAULT_DISK_CACHE_BYTES, DiskBlockCache, type DiskBlockCacheOptions, type DiskBlockCacheStats, openDiskBlockCache } from "./disk-block-cache.node.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay } from "./retry.js";
export { type CallOptions, type RangeRead, type RangeStream, Source, type SourceListOptions, type SourceOptions, type SourceReadOptions, type SourceStats, createSource } from "./source.js";
export { RandomAccessReader, type ReaderOptions } from "./random-access-reader.js";
export { LineIndex, type LineIndexOptions, type LineSpan } from "./line-index.js";
export { LocalDriver, type LocalDriverOptions, createLocalDriver } from "./local-driver.node.js";
export { HttpDriver, type HttpDriverOptions, type HttpListing, createHttpDriver, redactUrl } from "./http-driver.node.js";
export { S3Driver, type S3Credentials, type S3DriverOptions, createS3Driver } from "./s3-driver.node.js";
export { type OpenSourceOptions, driverFor, isRemoteTarget, openSource } from "./open-source.node.js";
