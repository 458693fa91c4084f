/**
 * The Node side of the exec helper's wire format (see `exec-helper-script.ts`): parsing
 * responses and turning their status into our error classes. Responses are treated as
 * untrusted bytes — anything malformed is a protocol error, never a crash or a guess.
 */
import { PermissionDeniedError, type WinkError } from "../../errors.js";
import { errnoError } from "../errno-errors.js";
import { displayPath } from "../paths.js";

export interface ExecStatus {
  readonly ok: boolean;
  /** Error code (ENOENT, EACCES…) when not ok. */
  readonly code: string;
  /** Short machine word from the helper: "symlink", "missing", "notdir"… */
  readonly reason: string;
  /** The rest of the status line: for path errors, the component at fault. */
  readonly detail: string;
}

export interface ExecResponse {
  readonly body: Buffer;
  readonly status: ExecStatus;
}

/** The helper said something that is not a response: the session cannot be trusted further. */
export class ExecProtocolError extends Error {}

const MAX_SIZE_LINE = 12;
const MAX_END_LINE = 8192;
const OK: ExecStatus = { ok: true, code: "", reason: "", detail: "" };

export function parseStatus(line: string): ExecStatus {
  if (line === "end ok") return OK;
  const match = /^end err ([A-Z]+) ([a-z-]+)(?: (.*))?$/s.exec(line);
  if (match === null) throw new ExecProtocolError(`Malformed status line from the exec helper: ${JSON.stringify(line.slice(0, 200))}`);
  return { ok: false, code: match[1] ?? "EIO", reason: match[2] ?? "", detail: match[3] ?? "" };
}

/** Incremental parser: feed stdout bytes, collect complete responses. */
export class ResponseParser {
  private pending: Buffer = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private bodyBytes = 0;
  private state: "size" | "data" | "end" = "size";
  private need = 0;

  /** True when no partial response is buffered. */
  get idle(): boolean {
    return this.state === "size" && this.pending.length === 0 && this.chunks.length === 0;
  }

  push(data: Buffer): ExecResponse[] {
    this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data]);
    const done: ExecResponse[] = [];
    for (;;) {
      if (this.state === "data") {
        if (this.pending.length === 0) break;
        const take = Math.min(this.need, this.pending.length);
        this.chunks.push(this.pending.subarray(0, take));
        this.bodyBytes += take;
        this.pending = this.pending.subarray(take);
        this.need -= take;
        if (this.need === 0) this.state = "size";
        continue;
      }
      const newline = this.pending.indexOf(0x0a);
      const limit = this.state === "size" ? MAX_SIZE_LINE : MAX_END_LINE;
      if (newline === -1) {
        if (this.pending.length > limit) throw new ExecProtocolError("Overlong line from the exec helper");
        break;
      }
      const line = this.pending.subarray(0, newline).toString("utf8");
      this.pending = this.pending.subarray(newline + 1);
      if (this.state === "size") {
        if (!/^\d{1,10}$/.test(line)) throw new ExecProtocolError(`Expected a chunk size from the exec helper, got ${JSON.stringify(line.slice(0, 80))}`);
        this.need = Number(line);
        this.state = this.need === 0 ? "end" : "data";
        continue;
      }
      done.push({ body: Buffer.concat(this.chunks, this.bodyBytes), status: parseStatus(line) });
      this.chunks = [];
      this.bodyBytes = 0;
      this.state = "size";
    }
    return done;
  }
}

/**
 * The error for a failed status, about `path` (the driver's relative path). `action` says
 * what was attempted ("read", "write"…), for messages.
 */
export function statusError(status: ExecStatus, path: string, action: string): WinkError {
  const shown = displayPath(path === "" ? "." : path);
  const component = status.detail;
  const where = component !== "" && component !== path ? ` (in ${shown})` : "";
  const context = { action, place: "container" as const };
  switch (status.code) {
    case "ENOENT":
      return errnoError("ENOENT", path, { ...context, ...(component === "" ? {} : { message: `No such file or directory: ${displayPath(component)}${where}` }) });
    case "ENOTDIR":
      return errnoError("ENOTDIR", path, { ...context, ...(component === "" ? {} : { message: `Not a directory: ${displayPath(component)}${where}` }) });
    case "EISDIR":
      return errnoError("EISDIR", path, { ...context, ...(status.reason === "root" ? { message: "Is a directory: the root" } : {}) });
    case "ENOTEMPTY":
      return errnoError("ENOTEMPTY", path, { ...context, message: `Directory not empty: ${shown} (pass recursive: true)` });
    case "EACCES":
      if (status.reason === "symlink") {
        const link = component === "" ? path : component;
        return new PermissionDeniedError(path, `Refusing to follow symbolic link ${displayPath(link)}${where}: symlinks are never followed`, { reason: "symlink", component: link });
      }
      if (status.reason === "other") return new PermissionDeniedError(path, `Refusing to ${action} ${shown}: not a regular file`, { reason: "other", component: path });
      if (status.reason === "root") return new PermissionDeniedError(path, "Cannot delete root", { reason: "root" });
      return new PermissionDeniedError(path, `Permission denied: cannot ${action} ${shown}`, { reason: status.reason });
    case "EINVAL":
      return errnoError("EINVAL", path, { ...context, message: `Invalid ${action} request for ${shown} (${status.reason})` });
    case "EEXIST":
    case "ENOSPC":
      return errnoError(status.code, path, context);
    default:
      return errnoError(undefined, path, { ...context, message: `I/O error in the container: cannot ${action} ${shown} (${status.reason}${component === "" ? "" : ` ${component}`})`, data: { code: status.code } });
  }
}
