#!/usr/bin/env bash
# The README's run command on a real fresh machine: a throw-away Debian bookworm root made with
# debootstrap, holding only what Swift's own installation instructions list (not the SQLite,
# LMDB or libpq headers), with this machine's Swift toolchain and package mirror mounted in.
# In it, from a clone of this checkout:
#   1. as a non-root user, `scripts/stratus demo` must stop before building, status 1, with the
#      exact `sudo apt-get install` line;
#   2. as root, `scripts/stratus demo` must install the libraries, build and run the demo;
#   3. run again, the demo must fetch the zone's changes from the token the first run saved.
# Needs root (debootstrap, mount, chroot) and Debian's package archive. Takes about 3 minutes
# on 2 cores. Usage: scripts/fresh-machine-check.sh   (scripts/test.sh runs it as root)
set -euo pipefail
checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
swift_root=$(cd "$(dirname "$(command -v swift)")/../.." && pwd) # /opt/swift for /opt/swift/usr/bin/swift
mirror=${STRATUS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What swift.org lists for Debian 12, plus libncurses6 (the toolchain's tools link it).
swift_dependencies=(binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libncurses6
    libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libz3-dev pkg-config tzdata zlib1g-dev)

fail() {
    echo "fresh-machine check: $*" >&2
    exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, mount, chroot)"

base=$(mktemp -d "${TMPDIR:-/tmp}/stratus-fresh-root-XXXXXX")
root=$base/root
mounts=()

# Unmounts everything this script mounted, and removes the root only when nothing is mounted
# in it any more (a bind mount of the toolchain must never be deleted through).
cleanup() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true; done
    if grep -q " $root" /proc/mounts; then
        echo "fresh-machine check: $root still has mounts; left in place" >&2
    else
        rm -rf --one-file-system "$base"
    fi
}
trap cleanup EXIT

bind() {
    mkdir -p "$root$2"
    mount --bind "$1" "$root$2"
    mounts+=("$root$2")
}

in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
        PATH="$swift_root/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" /bin/bash -c "$1"
}

step_start=$(date +%s)
step() {
    echo "== fresh machine: $* ($(($(date +%s) - step_start)) s so far)"
}

command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; } \
    || fail "cannot install debootstrap"
step "debootstrap bookworm (minbase) into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$base/debootstrap.log" 2>&1 \
    || fail "debootstrap failed: $(tail -n 5 "$base/debootstrap.log")"
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
bind /dev /dev
bind "$swift_root" "$swift_root"
[ -d /opt/swift-packages ] && bind /opt/swift-packages /opt/swift-packages
[ -f /etc/gitconfig ] && cp /etc/gitconfig "$root/etc/gitconfig"
cp /etc/resolv.conf "$root/etc/resolv.conf"

step "Swift's documented dependencies"
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${swift_dependencies[*]} >/dev/null 2>&1" \
    || fail "installing Swift's dependencies failed"
in_root "swift --version >/dev/null" || fail "the Swift toolchain does not run in the fresh root"
in_root "! pkg-config --exists lmdb" || fail "the fresh root already has LMDB: nothing would be checked"

git clone -q "$checkout" "$root/work/stratus"
in_root "useradd -m newcomer && mkdir -p /home/newcomer/app /root/app && chown -R newcomer /work/stratus"

step "as a user who is not root"
set +e
in_root "cd /home/newcomer/app && runuser -u newcomer -- /work/stratus/scripts/stratus demo" >"$base/user.out" 2>&1
status=$?
set -e
[ $status = 1 ] || fail "a non-root run exited with $status, not 1: $(tail -n 5 "$base/user.out")"
grep -q "sudo apt-get update && sudo apt-get install -y .*liblmdb-dev" "$base/user.out" \
    || fail "a non-root run did not print the apt-get line: $(cat "$base/user.out")"
[ ! -d "$root/work/stratus/.build" ] || fail "a non-root run started a build"

step "as root: scripts/stratus demo"
in_root "cd /root/app && /work/stratus/scripts/stratus demo" >"$base/root.out" 2>&1 \
    || fail "scripts/stratus demo failed as root: $(tail -n 20 "$base/root.out")"
grep -q "installing the system packages Stratus builds against: .*liblmdb-dev" "$base/root.out" \
    || fail "the run did not install LMDB: $(head -n 5 "$base/root.out")"
grep -q "records changed since the beginning; token saved" "$base/root.out" \
    || fail "the demo did not fetch the zone's changes: $(tail -n 20 "$base/root.out")"

step "as root, again: changes since the saved token"
in_root "cd /root/app && /work/stratus/scripts/stratus demo" >"$base/again.out" 2>&1 \
    || fail "the second run failed: $(tail -n 20 "$base/again.out")"
grep -q "records\? changed since the last run; token saved" "$base/again.out" \
    || fail "the second run did not use the saved token: $(tail -n 20 "$base/again.out")"
step "passed"
