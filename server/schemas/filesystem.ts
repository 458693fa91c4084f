/**
 * A snapshot's workspace: the request schemas of its routes (summary, flat tree, nested tree
 * with change badges, one file as data, one file as a download). The responses' shapes are
 * the library's (`shared/viewer/schemas/filesystem.ts`).
 */
import { Type } from "typebox";
import { selectorProperties } from "./common.js";

export { Browse, ChangeKind, FileContent, FileTree, FileTreeEntry, FileTreeNode, FilesystemMeta, FilesystemSourceKind as SourceKind } from "../../shared/viewer/schemas/index.js";

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
