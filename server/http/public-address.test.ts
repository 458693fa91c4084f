import { describe, expect, it } from "vitest";
import { PublicUrlError, parsePublicUrl, stripBasePath, withBasePath } from "./public-address.js";
import { requestRefusal, originPolicy } from "./request-origin.js";

describe("parsePublicUrl", () => {
  it("takes an https or http URL whose path ends in a slash", () => {
    const address = parsePublicUrl("https://Tools.Example/wink/");
    expect(address).toMatchObject({ origin: "https://tools.example", hostname: "tools.example", port: "443", basePath: "/wink/", secure: true });
    expect(parsePublicUrl("http://127.0.0.1:8080/")).toMatchObject({ origin: "http://127.0.0.1:8080", port: "8080", basePath: "/", secure: false });
  });

  it.each([
    ["ftp://tools.example/wink/", /http/],
    ["tools.example/wink/", /absolute/],
    ["https://tools.example/wink", /end with "\/"/],
    ["https://tools.example/wink/?a=1", /query/],
    ["https://tools.example/wink/#x", /fragment/],
    ["https://tools.example/wink/?", /query/],
    ["https://user:pw@tools.example/wink/", /user/],
    ["https://tools.example/a%2fb/", /plain/],
  ])("refuses %s", (text, message) => {
    expect(() => parsePublicUrl(text)).toThrow(PublicUrlError);
    expect(() => parsePublicUrl(text)).toThrow(message);
  });

  it("strips the base path, and tells the bare path and outside URLs apart", () => {
    expect(stripBasePath("/wink/api/run?file=a", "/wink/")).toBe("/api/run?file=a");
    expect(stripBasePath("/wink/", "/wink/")).toBe("/");
    expect(stripBasePath("/wink", "/wink/")).toBe("bare");
    expect(stripBasePath("/wink?file=a", "/wink/")).toBe("bare");
    expect(stripBasePath("/winks/", "/wink/")).toBe("outside");
    expect(stripBasePath("/api/run", "/wink/")).toBe("outside");
    expect(stripBasePath("/api/run", "/")).toBe("/api/run");
    expect(withBasePath("/wink/", "/auth/token")).toBe("/wink/auth/token");
  });
});

describe("Host and Origin with a public address", () => {
  const policy = originPolicy({ publicAddress: parsePublicUrl("https://tools.example/wink/") });
  const code = (headers: Record<string, string>) => requestRefusal(headers, policy)?.code ?? null;

  it("allows the public host (its port written or not) and loopback names", () => {
    expect(code({ host: "tools.example" })).toBeNull();
    expect(code({ host: "TOOLS.example:443" })).toBeNull();
    expect(code({ host: "127.0.0.1:8000" })).toBeNull();
    expect(code({ host: "tools.example:8443" })).toBe("WD_ERR_HOST");
    expect(code({ host: "evil.example" })).toBe("WD_ERR_HOST");
  });

  it("wants the public origin, scheme included, for the public host", () => {
    expect(code({ host: "tools.example", origin: "https://tools.example" })).toBeNull();
    expect(code({ host: "127.0.0.1:8000", origin: "https://tools.example" })).toBeNull();
    expect(code({ host: "tools.example", origin: "http://tools.example" })).toBe("WD_ERR_ORIGIN");
    expect(code({ host: "tools.example", origin: "https://evil.example" })).toBe("WD_ERR_ORIGIN");
    expect(code({ host: "127.0.0.1:8000", origin: "http://127.0.0.1:8000" })).toBeNull();
  });

  it("keeps the local default: loopback only, http://<Host> the only origin; https:// when the server speaks TLS", () => {
    const local = originPolicy({});
    expect(requestRefusal({ host: "tools.example" }, local)?.code).toBe("WD_ERR_HOST");
    expect(requestRefusal({ host: "127.0.0.1:8000", origin: "https://127.0.0.1:8000" }, local)?.code).toBe("WD_ERR_ORIGIN");
    const tls = originPolicy({ secure: true });
    expect(requestRefusal({ host: "127.0.0.1:8000", origin: "https://127.0.0.1:8000" }, tls)).toBeNull();
    expect(requestRefusal({ host: "127.0.0.1:8000", origin: "http://127.0.0.1:8000" }, tls)?.code).toBe("WD_ERR_ORIGIN");
  });
});
