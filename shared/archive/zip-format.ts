/**
 * Constants and pure helpers of the ZIP format (APPNOTE 6.3) shared by the reader and the
 * writer: record signatures and sizes, flags, methods, extra-field ids, DOS timestamps and
 * Unix mode bits. Browser-safe (no I/O).
 */

export const SIG_LOCAL_HEADER = 0x04034b50;
export const SIG_CENTRAL_HEADER = 0x02014b50;
export const SIG_EOCD = 0x06054b50;
export const SIG_ZIP64_EOCD = 0x06064b50;
export const SIG_ZIP64_LOCATOR = 0x07064b50;

export const LOCAL_HEADER_SIZE = 30;
export const CENTRAL_HEADER_SIZE = 46;
export const EOCD_SIZE = 22;
export const ZIP64_EOCD_SIZE = 56;
export const ZIP64_LOCATOR_SIZE = 20;
/** EOCD plus the longest comment: how far from the end the EOCD can start. */
export const MAX_EOCD_SEARCH = EOCD_SIZE + 0xffff;

export const FLAG_ENCRYPTED = 0x0001;
export const FLAG_DATA_DESCRIPTOR = 0x0008;
export const FLAG_STRONG_ENCRYPTION = 0x0040;
export const FLAG_UTF8 = 0x0800;
export const FLAG_MASKED_HEADERS = 0x2000;

export const METHOD_STORED = 0;
export const METHOD_DEFLATE = 8;
export const METHOD_AES = 99;

export const EXTRA_ZIP64 = 0x0001;
export const EXTRA_EXTENDED_TIMESTAMP = 0x5455;
export const EXTRA_UNICODE_PATH = 0x7075;
export const EXTRA_AES = 0x9901;

export const U16_MAX = 0xffff;
export const U32_MAX = 0xffffffff;

/** "Version made by": high byte 3 = Unix (external attributes carry st_mode), 19 = OS X. */
export const HOST_UNIX = 3;
export const HOST_OSX = 19;
/** Version needed to extract: 1.0 stored/directories, 2.0 deflate, 4.5 ZIP64. */
export const VERSION_STORED = 10;
export const VERSION_DEFLATE = 20;
export const VERSION_ZIP64 = 45;
/** DOS attribute bit for directories (low byte of external attributes). */
export const DOS_DIRECTORY = 0x10;

const METHOD_NAMES: Readonly<Record<number, string>> = {
  1: "shrink",
  6: "implode",
  9: "deflate64",
  12: "bzip2",
  14: "LZMA",
  93: "zstd",
  95: "xz",
  96: "JPEG",
  97: "WavPack",
  98: "PPMd",
  99: "AES",
};

/** Human name of a compression method for messages. */
export function methodName(method: number): string {
  return METHOD_NAMES[method] ?? "unknown";
}

// --- Unix modes ------------------------------------------------------------------------

export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;

/** What kind of node a Unix `st_mode` describes ("file", "directory", "symlink", "fifo"…), or null when it has no type bits. */
export function unixFileType(mode: number): string | null {
  switch (mode & S_IFMT) {
    case 0:
      return null;
    case S_IFREG:
      return "file";
    case S_IFDIR:
      return "directory";
    case S_IFLNK:
      return "symlink";
    case 0o010000:
      return "fifo";
    case 0o020000:
      return "character device";
    case 0o060000:
      return "block device";
    case 0o140000:
      return "socket";
    default:
      return "unknown file type";
  }
}

/**
 * Permission bits safe to restore (PEP 706 "data" filter): setuid, setgid, sticky and
 * group/other write are dropped; files stay owner-readable/writable and only keep group/other
 * execute when the owner has it; directories stay owner-accessible.
 */
export function sanitizeMode(mode: number, isDirectory: boolean): number {
  let safe = mode & 0o755;
  if (isDirectory) return safe | 0o700;
  safe |= 0o600;
  if ((safe & 0o100) === 0) safe &= ~0o011;
  return safe;
}

// --- DOS timestamps ----------------------------------------------------------------------

/** 1980-01-01 00:00 local time, the earliest DOS timestamp. */
const DOS_EPOCH_YEAR = 1980;

/** Milliseconds since the epoch of a DOS date/time pair (local time, like Info-ZIP), or null when invalid. */
export function dosDateTimeToMs(date: number, time: number): number | null {
  const year = DOS_EPOCH_YEAR + (date >>> 9);
  const month = (date >>> 5) & 0x0f;
  const day = date & 0x1f;
  if (month < 1 || month > 12 || day < 1) return null;
  const ms = new Date(year, month - 1, day, time >>> 11, (time >>> 5) & 0x3f, (time & 0x1f) * 2).getTime();
  return Number.isFinite(ms) ? ms : null;
}

/** DOS date and time of a timestamp in local time, clamped to 1980–2107. */
export function msToDosDateTime(ms: number): { date: number; time: number } {
  const d = new Date(ms);
  const year = d.getFullYear();
  if (!Number.isFinite(ms) || year < DOS_EPOCH_YEAR) return { date: (1 << 5) | 1, time: 0 };
  if (year > DOS_EPOCH_YEAR + 127) return { date: (127 << 9) | (12 << 5) | 31, time: (23 << 11) | (59 << 5) | 29 };
  return {
    date: ((year - DOS_EPOCH_YEAR) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >>> 1),
  };
}
