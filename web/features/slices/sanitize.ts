/**
 * The browser's own sanitising of markdown HTML from the API (defence in depth: the server
 * already escapes raw HTML). No scripts, handlers, forms, frames or styles; links open in a
 * new tab without referrer; images are not loaded at all (a remote image would be a
 * request to a foreign host) but shown as their alt text and address.
 */
import DOMPurify from "dompurify";

let configured = false;

function configure(): void {
  if (configured) return;
  configured = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href") ?? "";
      if (!/^(https?:|mailto:|#)/i.test(href)) node.removeAttribute("href");
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
  });
  DOMPurify.addHook("uponSanitizeElement", (node, data) => {
    if (data.tagName === "img" && node instanceof Element && node.parentNode !== null) {
      const label = document.createElement("span");
      label.className = "md-image";
      const alt = node.getAttribute("alt") ?? "";
      const src = node.getAttribute("src") ?? "";
      label.textContent = `[image${alt === "" ? "" : `: ${alt}`}${src === "" ? "" : ` — ${src}`}]`;
      // The image itself is removed (FORBID_TAGS); its description stays, as text.
      node.parentNode.insertBefore(label, node);
    }
  });
}

/** HTML safe to put in the page. */
export function sanitizeHtml(html: string): string {
  configure();
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["img", "style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed", "svg", "math", "video", "audio", "source", "picture", "link", "meta", "base"],
    FORBID_ATTR: ["style", "srcset", "action", "formaction", "ping"],
    ALLOW_DATA_ATTR: false,
  });
}
