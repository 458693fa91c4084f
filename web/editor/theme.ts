/**
 * The editor's look, from the app's CSS variables, so light and dark follow the theme
 * toggle without rebuilding editors; and a highlight style with the same palette.
 */
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import type { Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";

const editorTheme = EditorView.theme({
  "&": { color: "var(--text)", backgroundColor: "var(--code-bg)", fontSize: "12.5px", height: "100%" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.55" },
  ".cm-content": { caretColor: "var(--accent)" },
  ".cm-gutters": { backgroundColor: "var(--code-gutter)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine": { backgroundColor: "var(--code-active)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active)", color: "var(--text)" },
  ".cm-selectionBackground, &.cm-focused .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection) !important" },
  ".cm-searchMatch": { backgroundColor: "var(--search-match)", outline: "1px solid var(--accent-soft)" },
  ".cm-panels": { backgroundColor: "var(--panel)", color: "var(--text)", borderColor: "var(--border)" },
  ".cm-panels.cm-panels-top": { borderBottom: "1px solid var(--border)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--border)" },
  // The find panel (⌘F / Ctrl+F) in the app's fields and buttons: CodeMirror's own are grey gradients that ignore dark mode.
  ".cm-panel.cm-search": { display: "flex", flexWrap: "wrap", alignItems: "center", gap: "6px", padding: "6px 34px 6px 10px", fontFamily: "var(--sans)", fontSize: "12px" },
  ".cm-panel.cm-search br": { display: "none" },
  ".cm-panel input, .cm-panel button, .cm-panel label": { fontSize: "12px", margin: "0" },
  ".cm-textfield": { color: "var(--text)", backgroundColor: "var(--panel)", border: "1px solid var(--border-strong)", borderRadius: "var(--radius-small)", padding: "3px 8px", minWidth: "0" },
  ".cm-textfield:focus": { borderColor: "var(--accent)", boxShadow: "var(--focus)", outline: "none" },
  ".cm-button": { color: "var(--text)", backgroundColor: "var(--panel)", backgroundImage: "none", border: "1px solid var(--border-strong)", borderRadius: "var(--radius-small)", padding: "3px 10px", cursor: "pointer", textTransform: "none" },
  ".cm-button:hover": { borderColor: "var(--accent)", color: "var(--accent)" },
  ".cm-button:active": { backgroundImage: "none", backgroundColor: "var(--accent-soft)" },
  ".cm-panel.cm-search label": { display: "inline-flex", alignItems: "center", gap: "4px", color: "var(--muted)" },
  ".cm-panel.cm-search input[type=checkbox]": { accentColor: "var(--accent)", margin: "0" },
  ".cm-panel.cm-search [name=close]": { color: "var(--muted)", backgroundColor: "transparent", border: "none", fontSize: "18px", lineHeight: "1", top: "6px", right: "8px", cursor: "pointer" },
  ".cm-panel.cm-search [name=close]:hover": { color: "var(--text)" },
  ".cm-line.cm-target-line": { backgroundColor: "var(--target-line)" },
  // merge view
  ".cm-changedLine": { backgroundColor: "var(--diff-changed-line) !important" },
  ".cm-insertedLine, &.cm-merge-b .cm-changedLine": { backgroundColor: "var(--diff-add-line) !important" },
  ".cm-deletedLine, &.cm-merge-a .cm-changedLine": { backgroundColor: "var(--diff-del-line) !important" },
  "&.cm-merge-b .cm-changedText, .cm-insertedLine .cm-changedText": { background: "var(--diff-add-text) !important" },
  "&.cm-merge-a .cm-changedText, .cm-deletedChunk .cm-deletedText": { background: "var(--diff-del-text) !important" },
  ".cm-deletedChunk": { backgroundColor: "var(--diff-del-line) !important" },
  // An added or deleted file drawn alone (MergeDiff's one column): every line is a change.
  "&.cm-whole-added .cm-line": { backgroundColor: "var(--diff-add-line)" },
  "&.cm-whole-deleted .cm-line": { backgroundColor: "var(--diff-del-line)" },
  ".cm-collapsedLines": {
    color: "var(--muted)",
    background: "var(--panel-2)",
    borderTop: "1px solid var(--border)",
    borderBottom: "1px solid var(--border)",
    fontFamily: "var(--sans)",
    fontSize: "12px",
    padding: "4px 10px",
    // @codemirror/merge draws "⦚", which Debian's default fonts (DejaVu, Liberation) lack: it shows as a box.
    "&:before": { content: '"↕"' },
    "&:after": { content: '"↕"' },
  },
  ".cm-changeGutter": { width: "3px", paddingLeft: "1px" },
});

const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.modifier, tags.controlKeyword, tags.operatorKeyword], color: "var(--syn-keyword)" },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: "var(--syn-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--syn-number)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment, tags.docComment], color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName), tags.definition(tags.function(tags.variableName))], color: "var(--syn-function)" },
  { tag: [tags.typeName, tags.className, tags.namespace], color: "var(--syn-type)" },
  { tag: [tags.propertyName, tags.attributeName], color: "var(--syn-property)" },
  { tag: [tags.heading], color: "var(--syn-keyword)", fontWeight: "600" },
  { tag: [tags.link, tags.url], color: "var(--syn-string)", textDecoration: "underline" },
  { tag: [tags.emphasis], fontStyle: "italic" },
  { tag: [tags.strong], fontWeight: "600" },
  { tag: [tags.meta, tags.processingInstruction], color: "var(--syn-comment)" },
  { tag: [tags.invalid], color: "var(--danger)" },
]);

export const appEditorTheme: Extension = [editorTheme, syntaxHighlighting(highlight)];
