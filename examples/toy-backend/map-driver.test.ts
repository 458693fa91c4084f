// The whole conformance suite against the toy backend, in one call. A backend of your own
// does the same with `import { describeFilesystemConformance } from "wink-debug/conformance"`.
import { describeFilesystemConformance } from "../../shared/filesystem/conformance/index.js";
import { MapDriver, MapFilesystem } from "./map-driver.js";

describeFilesystemConformance({
  name: "toy map backend",
  expectedRoot: "/",
  capabilities: { fileModes: true, timestamps: true },
  async create(options = {}) {
    const driver = new MapDriver();
    const writable = new MapFilesystem({}, driver);
    for (const [path, content] of Object.entries(options.seed ?? {})) {
      if (path.endsWith("/")) await writable.mkdir(path);
      else if (typeof content === "string") await writable.write(path, content);
      else await writable.writeBytes(path, content);
    }
    const fs = new MapFilesystem({ readOnly: options.readOnly ?? false, mountPoint: options.mountPoint ?? null, ...(options.limits ? { limits: options.limits } : {}) }, driver);
    return { fs };
  },
});
