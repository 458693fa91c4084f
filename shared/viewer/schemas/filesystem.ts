/**
 * A snapshot's workspace: summary, flat tree (the seed's shape), nested tree with change
 * badges, one file as data.
 */
import { Type } from "typebox";
import { NullableString } from "./common.js";

export const FilesystemSourceKind = Type.Union([Type.Literal("archive"), Type.Literal("virtual_filesystem")]);
export const ChangeKind = Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted")]);

/** `/api/filesystem/meta`. */
export const FilesystemMeta = Type.Object({
  has_archive: Type.Boolean(),
  source: Type.Union([FilesystemSourceKind, Type.Null()]),
  /** File name of the archive (next to the session file), or null. */
  archive: NullableString,
  /** The archive's manifest as written (`manifest.json` or `_wink_metadata.json`), or null. */
  manifest: Type.Unknown(),
  file_count: Type.Integer(),
  total_bytes: Type.Integer(),
  /** Why no filesystem could be opened (missing or corrupt archive), or null. */
  error: NullableString,
});

/** `/api/filesystem/tree`: one file. */
export const FileTreeEntry = Type.Object({ path: Type.String(), size_bytes: Type.Integer() });
export const FileTree = Type.Array(FileTreeEntry);

/** `/api/filesystem/browse`: a node of the nested file tree. */
export const FileTreeNode = Type.Cyclic(
  {
    FileTreeNode: Type.Object({
      name: Type.String(),
      path: Type.String(),
      type: Type.Union([Type.Literal("file"), Type.Literal("directory")]),
      /** File size, or the total of the files below a directory (deleted files not counted). */
      size_bytes: Type.Integer(),
      /** Change against the base snapshot (a directory's own change is null). */
      change: Type.Union([ChangeKind, Type.Null()]),
      /** Changed files at or below this node. */
      changed_count: Type.Integer(),
      children: Type.Optional(Type.Array(Type.Ref("FileTreeNode"))),
    }),
  },
  "FileTreeNode",
);

/** `/api/filesystem/browse`: the nested tree and what its badges compare against. */
export const Browse = Type.Object({
  source: Type.Union([FilesystemSourceKind, Type.Null()]),
  archive: NullableString,
  /** The snapshot the badges compare against, or null. */
  base: Type.Union([Type.Object({ file: Type.String(), line_number: Type.Integer() }), Type.Null()]),
  root: FileTreeNode,
});

/** `/api/filesystem/file`: one file's content as data. */
export const FileContent = Type.Object({
  path: Type.String(),
  size_bytes: Type.Integer(),
  type: Type.Union([Type.Literal("text"), Type.Literal("image"), Type.Literal("binary")]),
  mime_type: NullableString,
  /** Text (UTF-8 lines from `offset`), base64 for images, null for binary files. */
  content: NullableString,
  encoding: Type.Union([Type.Literal("utf-8"), Type.Literal("base64"), Type.Null()]),
  /** First line returned (0-based; text only). */
  offset: Type.Integer(),
  /** Lines asked for, or null for all. */
  limit: Type.Union([Type.Integer(), Type.Null()]),
  total_lines: Type.Union([Type.Integer(), Type.Null()]),
  /** True when lines after `offset + limit` were left out. */
  truncated: Type.Boolean(),
});
