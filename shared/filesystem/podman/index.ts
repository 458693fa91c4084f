// Public API of the podman backend (re-exported by shared/filesystem/index.ts).
export {};
