import { describe, expect, it } from "vitest";
import { enrichMarkdown, isSafeLink, looksLikeMarkdown, renderMarkdown } from "./markdown.js";

describe("looksLikeMarkdown (WINK's heuristic)", () => {
  it("needs 16 characters and one markdown feature", () => {
    expect(looksLikeMarkdown("# Heading here ok")).toBe(true);
    expect(looksLikeMarkdown("# Short")).toBe(false);
    expect(looksLikeMarkdown("- a list item that is long")).toBe(true);
    expect(looksLikeMarkdown("1. numbered item in a list")).toBe(true);
    expect(looksLikeMarkdown("call `planning_setup` first")).toBe(true);
    expect(looksLikeMarkdown("see [the docs](https://x.test) now")).toBe(true);
    expect(looksLikeMarkdown("first paragraph\n\nsecond one")).toBe(true);
    expect(looksLikeMarkdown("this is **bold** text here")).toBe(true);
    expect(looksLikeMarkdown("just an ordinary sentence without markup")).toBe(false);
    expect(looksLikeMarkdown("** not bold because of the space**")).toBe(false);
    expect(looksLikeMarkdown("[link](\nbroken across lines)")).toBe(false);
  });

  it("stays linear on inputs that make the original patterns backtrack", () => {
    const started = Date.now();
    expect(looksLikeMarkdown("[".repeat(200_000))).toBe(false);
    expect(looksLikeMarkdown(`**x${"*".repeat(200_000)}`)).toBe(true);
    expect(looksLikeMarkdown(`**a${" b".repeat(100_000)}`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe("renderMarkdown", () => {
  it("renders commonmark and escapes raw HTML", () => {
    expect(renderMarkdown("# Title\n\nSome **bold** text")).toBe("<h1>Title</h1>\n<p>Some <strong>bold</strong> text</p>\n");
    const html = renderMarkdown('<img src=x onerror="alert(1)"><script>alert(2)</script>');
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain("&lt;img");
  });

  it("drops links with unsafe schemes and keeps safe ones", () => {
    const html = renderMarkdown("[a](javascript:alert(1)) [b](data:text/html;base64,PHNjcmlwdD4=) [c](https://ok.test) [d](#anchor) [e](JaVa\tScRiPt:x) ![i](vbscript:x)");
    expect(html).not.toMatch(/href="(?:javascript|data|vbscript)/i);
    expect(html).not.toMatch(/src="/);
    expect(html).toContain('href="https://ok.test"');
    expect(html).toContain('href="#anchor"');
  });

  it("classifies links", () => {
    for (const safe of ["https://a.test", "http://a.test", "mailto:a@b.test", "relative/path", "#x", "?q=1"]) expect(isSafeLink(safe), safe).toBe(true);
    for (const unsafe of ["javascript:x", " javascript:x", "java\nscript:x", "data:text/html,x", "file:///etc/passwd", "//evil.test", "\\\\evil"]) expect(isSafeLink(unsafe), unsafe).toBe(false);
  });
});

describe("enrichMarkdown", () => {
  it("wraps markdown strings at any depth, passes wrappers and other values through, never mutates", () => {
    const prerendered = { __markdown__: { text: "t", html: "<p>t</p>" } };
    const input = { a: "# Heading\n\nSome **bold** markdown content.", b: ["* bullet point with detail", prerendered, 7, null, true], c: "short" };
    const copy = structuredClone(input);
    const output = enrichMarkdown(input) as Record<string, unknown>;
    expect(input).toEqual(copy);
    expect((output.a as { __markdown__: { html: string } }).__markdown__.html).toContain("<h1>");
    const list = output.b as unknown[];
    expect((list[0] as { __markdown__: { html: string } }).__markdown__.html.startsWith("<ul>")).toBe(true);
    expect(list.slice(1)).toEqual([prerendered, 7, null, true]);
    expect(output.c).toBe("short");
  });

  it("keeps a __proto__ key as data", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const output = enrichMarkdown(input as never) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.keys(output)).toEqual(["__proto__", "x"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
