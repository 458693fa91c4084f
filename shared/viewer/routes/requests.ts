/**
 * The request schemas of the viewer's snapshot routes (WINK's viewer API, session files and
 * timelines, a snapshot's workspace, comparisons, search, tool calls, runs): what each route
 * accepts in its query, path and body. `./table.ts` names them with their routes and response
 * shapes. JSON text of each schema is the key of its generated validator
 * (server/library/request-validators.ts): changing one means `npm run build`.
 */
import { Type } from "typebox";

/** The explicit snapshot selector every snapshot route accepts (omitted: the current snapshot). */
export const selectorProperties = {
  /** Session file relative to the served directory, e.g. `run-1/abc.jsonl`. */
  file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  /** 1-based physical line number in that file. */
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Session id: the first line of that session in the file. */
  session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
};

export const SelectorQuery = Type.Object(selectorProperties, { additionalProperties: false });

// WINK's viewer API: meta, entries, slices, raw, select, switch
/** `/api/entries`: WINK's every line by default; `offset`/`limit` ask a page of them (a file of 1.5 M lines answered ~290 MiB). */
export const EntriesQuery = Type.Object(
  {
    ...selectorProperties,
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const SliceParams = Type.Object({ slice_type: Type.String({ minLength: 1 }) });

export const SliceQuery = Type.Object(
  {
    ...selectorProperties,
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 0 })),
    /** `0` returns strings as written, without markdown wrappers. */
    markdown: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  },
  { additionalProperties: false },
);

/** WINK validates these by hand, with its own messages, so the body schema accepts any value. */
export const SelectBody = Type.Object({ session_id: Type.Optional(Type.Unknown()), line_number: Type.Optional(Type.Unknown()) });

export const SwitchBody = Type.Object({ path: Type.Optional(Type.Unknown()), session_id: Type.Optional(Type.Unknown()), line_number: Type.Optional(Type.Unknown()) });

// Session files and a session's timeline
export const FilesQuery = Type.Object(
  {
    /** Only this file. */
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** `1`: wait until every file is indexed (default: answer at once, pending files marked). */
    wait: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
    /** A page of the files, in path order (default: the first 500). */
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    /** A page of each file's line errors (default: its first 100). */
    errors_offset: Type.Optional(Type.Integer({ minimum: 0 })),
    errors_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    /** A page of each file's top-level sessions (default: its first 1,000). */
    sessions_offset: Type.Optional(Type.Integer({ minimum: 0 })),
    sessions_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000 })),
  },
  { additionalProperties: false },
);

export const TimelineQuery = Type.Object(selectorProperties, { additionalProperties: false });

// A snapshot's workspace: summary, trees, one file as data or as a download
export const BrowseQuery = Type.Object(
  {
    ...selectorProperties,
    /** Badges against: `previous` (the session's previous line, default), `none`, or a snapshot given by base_file/base_line. */
    compare: Type.Optional(Type.Union([Type.Literal("previous"), Type.Literal("none")])),
    base_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    base_line: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const FileQuery = Type.Object(
  {
    ...selectorProperties,
    /** Workspace-relative path (`src/main.py`); `..` segments are refused. */
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const FileWildcardParams = Type.Object({ "*": Type.String() });
export const FileWildcardQuery = Type.Object(
  { ...selectorProperties, offset: Type.Optional(Type.Integer({ minimum: 0 })), limit: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: false },
);

export const DownloadQuery = Type.Object(
  { ...selectorProperties, path: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);

// Comparing any two snapshots
/** The two sides: `base_*` and `target_*` selectors. Without a base, the session's previous line; without a target, the current snapshot. */
export const diffSideProperties = {
  base_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  base_line: Type.Optional(Type.Integer({ minimum: 1 })),
  base_session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  target_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  target_line: Type.Optional(Type.Integer({ minimum: 1 })),
  target_session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
};

/** Rename and copy detection (git's `-M`/`-C`) at 50 % similarity: renames on by default, copies only with `copies=1` (as git only with -C). */
export const renameProperties = {
  renames: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  copies: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  similarity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
};

export const DiffQuery = Type.Object({ ...diffSideProperties, ...renameProperties }, { additionalProperties: false });
export const FileDiffQuery = Type.Object(
  {
    ...diffSideProperties,
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    /** The file's path in the base, for a renamed or copied file. */
    base_path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  },
  { additionalProperties: false },
);
export const SliceDiffQuery = Type.Object({ ...diffSideProperties, slice_type: Type.String({ minLength: 1 }) }, { additionalProperties: false });

// Search across one snapshot's slices and workspace files
export const SearchQuery = Type.Object(
  {
    ...selectorProperties,
    /** Case-insensitive substring (not a regular expression). */
    q: Type.String({ minLength: 1, maxLength: 1000 }),
    /** `slices`, `files` or both (default). */
    scope: Type.Optional(Type.Union([Type.Literal("slices"), Type.Literal("files"), Type.Literal("all")])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

// The per-tool-call undo store: one changed file's diff
/** One changed file of one tool call (`call_id` as the timeline event's `call_id`, `path` as listed in `changes`). */
export const ToolCallDiffQuery = Type.Object(
  {
    ...selectorProperties,
    call_id: Type.String({ minLength: 1, maxLength: 1024 }),
    path: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);

// Runs and the search across a run
/**
 * A page of the runs, newest first: `offset`/`limit` (default: every run), `q` (the file's
 * path contains it, case-insensitively), `since`/`until` (the file's modification time, ISO
 * 8601 date or date-time; `until` a date includes that whole day).
 */
export const RunsQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    q: Type.Optional(Type.String({ maxLength: 256 })),
    since: Type.Optional(Type.String({ maxLength: 64 })),
    until: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** `file`: the run's session file (default: the newest run). */
export const RunQuery = Type.Object({ file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) }, { additionalProperties: false });

/** `/api/run/session`: a stretch of one session's turns and snapshots (the run's file as in `/api/run`; `limit` at most RUN_SESSION_PAGE_LIMIT). */
export const RunSessionQuery = Type.Object(
  {
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    session: Type.String({ minLength: 1, maxLength: 1024 }),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

/** `/api/run/failures`: a stretch of the run's failures (the run's file as in `/api/run`; `limit` at most RUN_FAILURE_PAGE_LIMIT, 500). */
export const RunFailuresQuery = Type.Object(
  {
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  },
  { additionalProperties: false },
);

export const RunSearchQuery = Type.Object(
  {
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** The session searched with its children (default: the run's root session). */
    session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    q: Type.String({ minLength: 1, maxLength: 1000 }),
    /** `1`: `q` is a regular expression (linear-time: no backreferences or lookarounds; case-sensitive). */
    regex: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000 })),
  },
  { additionalProperties: false },
);

/** The most runs one `/api/failures/runs` answer lists. */
export const EVAL_RUN_PAGE_LIMIT = 1000;

/**
 * `/api/failures/runs`: the filters of the eval's run list (as the page's URL holds them) and
 * the stretch asked (`limit` default 200). `group`: a group's signature, its runs only;
 * `since`/`until`: dates (`YYYY-MM-DD`, `until` the whole day) or date-times; `q`: text of the
 * run's path (ignored with `group`, where it filters the groups).
 */
export const EvalRunsQuery = Type.Object(
  {
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    outcome: Type.Optional(Type.Union([Type.Literal("ok"), Type.Literal("failed"), Type.Literal("error")])),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    since: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    until: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    q: Type.Optional(Type.String({ maxLength: 1000 })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EVAL_RUN_PAGE_LIMIT })),
  },
  { additionalProperties: false },
);

/** `signature`: a failure group's, as `/api/failures` lists it. */
export const FailureOccurrencesQuery = Type.Object({ signature: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });
