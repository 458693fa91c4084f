/**
 * A tool call's arguments and result shown for what they are: `edit_file` as the diff of its
 * old and new strings, `write_file` as the written content (highlighted for its path),
 * `read_file` as the file read, `grep`/`glob`/`ls` as result lists (grep hits link to the
 * file line), errors highlighted; anything else as JSON trees.
 */
import { Suspense, lazy, useMemo } from "react";
import type { ReactNode } from "react";
import { diffText } from "../../../shared/viewer/index.js";
import { Spinner } from "../../components/feedback.js";
import { Link } from "../../components/Link.js";
import { usePreferences } from "../../state/preferences.js";
import { HunkList } from "../../components/HunkList.js";
import { JsonTree } from "../slices/JsonTree.js";
import { asMarkdown, visibleText } from "../../components/json-model.js";
import { useTreeState } from "../slices/tree-state.js";

const CodeView = lazy(() => import("../../editor/CodeView.js").then((module) => ({ default: module.CodeView })));

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A string field (markdown-wrapped strings unwrapped), or null. */
function text(object: unknown, ...keys: string[]): string | null {
  if (!isObject(object)) return null;
  for (const key of keys) {
    const value = object[key];
    if (typeof value === "string") return value;
    const markdown = asMarkdown(value);
    if (markdown !== null) return markdown.text;
  }
  return null;
}

function Code({ path, value }: { path: string; value: string }) {
  return (
    <div className="detail-code">
      <Suspense fallback={<Spinner label="Loading the editor…" />}>
        <CodeView path={path} text={value} />
      </Suspense>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="detail-section">
      <h4>{title}</h4>
      {children}
    </section>
  );
}

function JsonSection({ title, value }: { title: string; value: unknown }) {
  const depth = usePreferences().expandDepth;
  const tree = useTreeState(depth);
  if (value === undefined) return null;
  return (
    <Section title={title}>
      <div className="json-tree-host">
        <JsonTree value={value} path={title} label={title.toLowerCase()} tree={tree} keyNeedle="" onPopOut={() => undefined} />
      </div>
    </Section>
  );
}

/** grep's `path:line:text` (or `path:line`) lines, else plain lines. */
function ResultLines({ lines }: { lines: readonly string[] }) {
  return (
    <ul className="result-lines" data-testid="result-lines">
      {lines.slice(0, 500).map((line, index) => {
        const match = /^([^\s:][^:]*):(\d+)(?::(.*))?$/.exec(line);
        return (
          <li key={index} className="mono">
            {match !== null && match[1] !== undefined ? (
              <Link to={{ view: "files", path: match[1], at: Number(match[2]), base: undefined }}>
                {visibleText(match[1])}:{match[2]}
              </Link>
            ) : null}
            {match !== null ? (match[3] !== undefined ? <span className="muted">:{visibleText(match[3])}</span> : null) : visibleText(line)}
          </li>
        );
      })}
      {lines.length > 500 ? <li className="muted small">{lines.length - 500} more lines</li> : null}
    </ul>
  );
}

export function ToolCallBody({ item }: { item: unknown }) {
  const name = text(item, "name") ?? "";
  const params = isObject(item) ? item.params : undefined;
  const result = isObject(item) ? item.result : undefined;
  const message = text(result, "message") ?? text(item, "rendered_output");
  const failed = isObject(result) && result.success === false;
  const path = text(params, "file_path", "path", "filename", "file") ?? "";
  const editHunks = useMemo(() => {
    const before = text(params, "old_string", "old_str", "search");
    const after = text(params, "new_string", "new_str", "replace");
    if (before === null || after === null) return null;
    const diff = diffText(`${before}\n`, `${after}\n`, { context: 3, timeoutMs: 200 });
    return diff.status === "ok" ? diff.hunks : null;
  }, [params]);

  let argumentsView: ReactNode;
  if (/edit/i.test(name) && editHunks !== null) {
    argumentsView = (
      <Section title={`Edit of ${path || "the file"}`}>
        <div className="detail-hunks">
          <HunkList hunks={editHunks} layout="unified" label={`Edit of ${path || "the file"}`} />
        </div>
      </Section>
    );
  } else if (/write/i.test(name) && text(params, "content", "text") !== null) {
    argumentsView = (
      <Section title={`Content written to ${path || "the file"}`}>
        <Code path={path} value={text(params, "content", "text") ?? ""} />
      </Section>
    );
  } else {
    argumentsView = <JsonSection title="Arguments" value={params} />;
  }

  let resultView: ReactNode;
  const value = isObject(result) ? result.value : undefined;
  const content = text(value, "content", "text") ?? (typeof value === "string" ? value : null);
  if (failed) {
    resultView = (
      <div className="detail-error" role="alert" data-testid="detail-error">
        <strong>Failed</strong> {visibleText(message ?? "The tool call failed")}
      </div>
    );
  } else if (/read/i.test(name) && (content ?? message) !== null) {
    resultView = (
      <Section title={`${path || "File"} as read`}>
        <Code path={path} value={content ?? message ?? ""} />
      </Section>
    );
  } else if (/grep|glob|ls|find|search|list/i.test(name) && message !== null) {
    resultView = (
      <Section title="Results">
        <ResultLines lines={message.split("\n").filter((line) => line !== "")} />
      </Section>
    );
  } else {
    resultView = (
      <>
        {message !== null ? (
          <Section title="Message">
            <p className="detail-message">{visibleText(message)}</p>
          </Section>
        ) : null}
        <JsonSection title="Result" value={result} />
      </>
    );
  }
  return (
    <div className="tool-call-body">
      {failed ? resultView : null}
      {argumentsView}
      {failed ? <JsonSection title="Result" value={result} /> : resultView}
    </div>
  );
}

/** Any other event: its fields as a tree. */
export function EventBody({ item }: { item: unknown }) {
  return <JsonSection title="Event" value={item} />;
}
