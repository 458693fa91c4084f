/**
 * A snapshot's workspace: summary, flat tree (the seed's shape), nested tree with change
 * badges, one file as data, one file as a download.
 */
import { Type } from "typebox";
import { selectorProperties } from "./common.js";

export const SourceKind = Type.Union([Type.Literal("archive"), Type.Literal("virtual_filesystem")]);
export const ChangeKind = Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted")]);

export const FilesystemMeta = Type.Object({
  has_archive: Type.Boolean(),
  source: Type.Union([SourceKind, Type.Null()]),
  archive: Type.Union([Type.String(), Type.Null()]),
  manifest: Type.Unknown(),
  file_count: Type.Integer(),
  total_bytes: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const FileTreeEntry = Type.Object({ path: Type.String(), size_bytes: Type.Integer() });
export const FileTree = Type.Array(FileTreeEntry);

export const FileTreeNode = Type.Cyclic(
  {
    FileTreeNode: Type.Object({
      name: Type.String(),
      path: Type.String(),
      type: Type.Union([Type.Literal("file"), Type.Literal("directory")]),
      size_bytes: Type.Integer(),
      change: Type.Union([ChangeKind, Type.Null()]),
      changed_count: Type.Integer(),
      children: Type.Optional(Type.Array(Type.Ref("FileTreeNode"))),
    }),
  },
  "FileTreeNode",
);

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

export const Browse = Type.Object({
  source: Type.Union([SourceKind, Type.Null()]),
  archive: Type.Union([Type.String(), Type.Null()]),
  /** The snapshot the badges compare against, or null. */
  base: Type.Union([Type.Object({ file: Type.String(), line_number: Type.Integer() }), Type.Null()]),
  root: FileTreeNode,
});

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

export const FileContent = Type.Object({
  path: Type.String(),
  size_bytes: Type.Integer(),
  type: Type.Union([Type.Literal("text"), Type.Literal("image"), Type.Literal("binary")]),
  mime_type: Type.Union([Type.String(), Type.Null()]),
  content: Type.Union([Type.String(), Type.Null()]),
  encoding: Type.Union([Type.Literal("utf-8"), Type.Literal("base64"), Type.Null()]),
  offset: Type.Integer(),
  limit: Type.Union([Type.Integer(), Type.Null()]),
  total_lines: Type.Union([Type.Integer(), Type.Null()]),
  truncated: Type.Boolean(),
});

export const DownloadQuery = Type.Object(
  { ...selectorProperties, path: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);
