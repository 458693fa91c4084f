#!/usr/bin/env bash
# Installs the Debian packages the test suite drives for real (git, ripgrep, unzip/zip and
# python3 for ZIP interop, chromium for e2e, podman/runc/busybox-static for containers,
# xfsprogs to loop-mount an XFS image for the reflink snapshot tests).
# Idempotent: a package is only installed when its command is missing.
set -euo pipefail

declare -A need=(
  [git]=git [rg]=ripgrep [unzip]=unzip [zip]=zip [zipinfo]=unzip [python3]=python3
  [chromium]=chromium [podman]=podman [runc]=runc [busybox]=busybox-static
  [mkfs.xfs]=xfsprogs
)
# busybox-static installs /bin/busybox; a dynamic busybox would not run inside an empty rootfs.
missing=()
for cmd in "${!need[@]}"; do
  if [ "$cmd" = busybox ]; then
    dpkg -s busybox-static >/dev/null 2>&1 || missing+=("busybox-static")
  elif ! command -v "$cmd" >/dev/null 2>&1; then
    missing+=("${need[$cmd]}")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
if [ "$(id -u)" != 0 ]; then
  echo "wink-debug tests need these Debian packages: ${missing[*]} (run as root, or install them first)" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q "${missing[@]}" >/dev/null
