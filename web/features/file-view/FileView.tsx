/**
 * One workspace file at the selected snapshot: text in a read-only editor (loaded on
 * demand), markdown preview, images (as data, through <img>, where nothing runs), a notice
 * for binary files; copy and download. File contents are data and never navigated to.
 */
import { Suspense, lazy, useEffect, useMemo, useState } from "react";
import type { SnapshotRef } from "../../api/api.js";
import { at } from "../../api/api.js";
import { useApi } from "../../api/context.js";
import { copyText } from "../../components/clipboard.js";
import { EmptyState, ErrorState, Spinner, errorMessage } from "../../components/feedback.js";
import { formatBytes, formatCount } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { languageName } from "../../editor/languages.js";
import { useFileContent } from "../../queries/hooks.js";
import { showToast } from "../../state/toasts.js";
import { useNavigate } from "../../state/url-store.js";
import { sanitizeHtml } from "../slices/sanitize.js";

const CodeView = lazy(() => import("../../editor/CodeView.js").then((module) => ({ default: module.CodeView })));

export interface FileViewProps {
  readonly snapshot: SnapshotRef;
  readonly path: string;
  readonly line: number | undefined;
  readonly change: string | null;
  readonly canCompare: boolean;
}

export function FileView({ snapshot, path, line, change, canCompare }: FileViewProps) {
  const api = useApi();
  const navigate = useNavigate();
  const content = useFileContent(change === "deleted" ? null : snapshot, path);
  const isMarkdown = /\.(md|markdown)$/i.test(path);
  const [preview, setPreview] = useState(isMarkdown);
  useEffect(() => setPreview(isMarkdown), [path, isMarkdown]);
  const data = content.data;

  const header = (
    <header className="file-view-header">
      <div className="file-path mono" title={path} data-testid="file-path">
        {path}
      </div>
      <div className="file-facts muted small">
        {data !== undefined ? formatBytes(data.size_bytes) : null}
        {data?.type === "text" && data.total_lines !== null ? ` · ${formatCount(data.total_lines)} lines` : null}
        {languageName(path) !== null ? ` · ${languageName(path)}` : null}
        {change !== null ? <span className={`change-badge badge-${change}`}>{change}</span> : null}
      </div>
      <div className="file-actions">
        {isMarkdown && data?.type === "text" ? (
          <div className="segmented" role="group" aria-label="Markdown display">
            <button type="button" className={preview ? "is-on" : ""} aria-pressed={preview} onClick={() => setPreview(true)}>
              Preview
            </button>
            <button type="button" className={preview ? "" : "is-on"} aria-pressed={!preview} onClick={() => setPreview(false)}>
              Source
            </button>
          </div>
        ) : null}
        {canCompare ? (
          <button type="button" className="btn btn-small" onClick={() => navigate({ view: "compare", path })} title="Compare this file with the base snapshot">
            <Icon name="compare" /> Diff
          </button>
        ) : null}
        <button
          type="button"
          className="btn btn-small"
          disabled={data?.type !== "text"}
          onClick={() =>
            void copyText(data?.content ?? "").then(
              () => showToast("Copied the file's content"),
              (error: unknown) => showToast(`Copy failed: ${errorMessage(error)}`, "error"),
            )
          }
        >
          <Icon name="copy" /> Copy
        </button>
        <button type="button" className="btn btn-small" disabled={change === "deleted"} onClick={() => void api.download({ ...at(snapshot), path }).catch((error: unknown) => showToast(`Download failed: ${errorMessage(error)}`, "error"))}>
          <Icon name="download" /> Download
        </button>
      </div>
    </header>
  );

  let body;
  if (change === "deleted") body = <EmptyState title="Deleted in this snapshot">It existed in the base snapshot; open the diff to see what it held.</EmptyState>;
  else if (content.isPending) body = <Spinner label="Reading the file…" />;
  else if (content.isError) body = <ErrorState error={content.error} title={`Could not read ${path}`} onRetry={() => void content.refetch()} />;
  else if (content.data.type === "binary") body = <EmptyState title="Binary file cannot be displayed">{formatBytes(content.data.size_bytes)} of binary data. Use Download to save it.</EmptyState>;
  else if (content.data.type === "image") body = <ImagePreview mime={content.data.mime_type ?? "application/octet-stream"} base64={content.data.content ?? ""} path={path} />;
  else if (preview && isMarkdown) body = <MarkdownPreview text={content.data.content ?? ""} />;
  else
    body = (
      <Suspense fallback={<Spinner label="Loading the editor…" />}>
        <CodeView path={path} text={content.data.content ?? ""} line={line} onLineClick={(at) => navigate({ at }, { replace: true })} />
      </Suspense>
    );

  return (
    <section className="file-view card" aria-label={`File ${path}`}>
      {header}
      <div className="file-view-body">{body}</div>
    </section>
  );
}

const IMAGE_MIME = /^image\/(png|jpeg|gif|webp|bmp|x-icon|svg\+xml)$/;

function ImagePreview({ mime, base64, path }: { mime: string; base64: string; path: string }) {
  // An allow-listed image type as a data: URL in <img>: an SVG shown this way cannot run script.
  if (!IMAGE_MIME.test(mime)) return <EmptyState title="Not a displayable image" />;
  return (
    <div className="image-preview">
      <img src={`data:${mime};base64,${base64}`} alt={path} />
    </div>
  );
}

function MarkdownPreview({ text }: { text: string }) {
  const [html, setHtml] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let cancelled = false;
    // The shared renderer (raw HTML escaped, safe links), loaded on demand, then DOMPurify.
    import("../../../shared/viewer/markdown.js").then(
      (module) => !cancelled && setHtml(sanitizeHtml(module.renderMarkdown(text))),
      (cause: unknown) => !cancelled && setError(cause),
    );
    return () => {
      cancelled = true;
    };
  }, [text]);
  const body = useMemo(() => (html === null ? null : { __html: html }), [html]);
  if (error !== null) return <ErrorState error={error} title="Could not render the markdown" />;
  if (body === null) return <Spinner label="Rendering…" />;
  return <div className="markdown-body markdown-file" dangerouslySetInnerHTML={body} />;
}
