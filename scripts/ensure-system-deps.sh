#!/usr/bin/env bash
# Installs the Debian packages the test suite drives for real (git, ripgrep, unzip/zip and
# python3 for ZIP interop, chromium for e2e, podman/runc/busybox-static for containers,
# xfsprogs to loop-mount an XFS image for the reflink snapshot tests, nginx and Ceph's
# radosgw as the HTTP and S3 stores of shared/remote's tests).
# Idempotent: a package is only installed when its command is missing.
set -euo pipefail

declare -A need=(
  [git]=git [rg]=ripgrep [unzip]=unzip [zip]=zip [zipinfo]=unzip [python3]=python3
  [chromium]=chromium [podman]=podman [runc]=runc [busybox]=busybox-static
  [mkfs.xfs]=xfsprogs [nginx]=nginx
)
# Ceph without its recommendations (~64 MB instead of several hundred): a single-node
# memstore cluster needs only the monitor, the OSD, radosgw and the CLI tools.
declare -A lean=(
  [ceph-mon]=ceph-mon [ceph-osd]=ceph-osd [radosgw]=radosgw [radosgw-admin]=radosgw
  [ceph]=ceph-common [monmaptool]=ceph-common [ceph-authtool]=ceph-common
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
lean_missing=()
for cmd in "${!lean[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || lean_missing+=("${lean[$cmd]}")
done
if [ ${#missing[@]} -eq 0 ] && [ ${#lean_missing[@]} -eq 0 ]; then
  exit 0
fi
missing+=("${lean_missing[@]}")
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
if [ ${#lean_missing[@]} -gt 0 ]; then mapfile -t lean_missing < <(printf '%s\n' "${lean_missing[@]}" | sort -u); fi
if [ "$(id -u)" != 0 ]; then
  echo "wink-debug tests need these Debian packages: ${missing[*]} (run as root, or install them first)" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
regular=()
for package in "${missing[@]}"; do
  [[ " ${lean_missing[*]} " == *" $package "* ]] || regular+=("$package")
done
if [ ${#regular[@]} -gt 0 ]; then apt-get install -y -q "${regular[@]}" >/dev/null; fi
if [ ${#lean_missing[@]} -gt 0 ]; then apt-get install -y -q --no-install-recommends "${lean_missing[@]}" >/dev/null; fi
