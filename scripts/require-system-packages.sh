#!/usr/bin/env bash
# Makes sure the C libraries Stratus builds against are installed, before anything builds:
#
#   library    pkg-config name   Debian/Ubuntu package
#   SQLite     sqlite3           libsqlite3-dev
#   LMDB       lmdb              liblmdb-dev     (not on a fresh Debian machine)
#   libpq      libpq             libpq-dev
#
# plus pkg-config itself, through which the package's system-library targets find them.
# Usage: scripts/require-system-packages.sh [DEBIAN_PACKAGE...]
#   DEBIAN_PACKAGEs are extra packages to make sure of, checked with dpkg-query, except
#   python3-venv: scripts/schemathesis.sh (and scripts/test.sh, which runs it) asks for it, and
#   it counts as there when `python3` can make a virtual environment with pip in it (Debian's
#   python3 needs python3-venv for ensurepip; a python3 of one's own, from pyenv say, has it).
#
# As root, installs what is missing with apt-get (update, then install) and says so on
# standard error. As another user, changes nothing: it prints the exact command to run and
# exits with status 1. Exits 0 at once, printing nothing, when everything is there.
set -euo pipefail

# Whether a Debian package is installed.
installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# Whether a library is there: pkg-config knows it (or, without pkg-config, its package is installed).
have_library() {
    local module=$1 package=$2
    if command -v pkg-config >/dev/null 2>&1; then
        pkg-config --exists "$module"
    else
        installed "$package"
    fi
}

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
have_library sqlite3 libsqlite3-dev || missing+=(libsqlite3-dev)
have_library lmdb liblmdb-dev || missing+=(liblmdb-dev)
have_library libpq libpq-dev || missing+=(libpq-dev)
# Whether `python3` can make a virtual environment with pip (venv runs ensurepip).
have_python_venv() {
    command -v python3 >/dev/null 2>&1 && python3 -c 'import ensurepip, venv' >/dev/null 2>&1
}

for package in "$@"; do
    case $package in
        python3-venv) have_python_venv || missing+=(python3-venv) ;;
        *) installed "$package" || missing+=("$package") ;;
    esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
    {
        echo "Stratus needs these system packages to build: ${missing[*]}"
        if command -v apt-get >/dev/null 2>&1; then
            echo "Install them, then run this again:"
            echo "    sudo apt-get update && sudo apt-get install -y ${missing[*]}"
        else
            echo "Install them with your system's package manager (these are the Debian/Ubuntu names), then run this again."
        fi
    } >&2
    exit 1
fi

command -v apt-get >/dev/null 2>&1 || {
    echo "Stratus needs these system packages to build: ${missing[*]}, and there is no apt-get to install them with." >&2
    exit 1
}
echo "== installing the system packages Stratus builds against: ${missing[*]} (apt-get)" >&2
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >&2; then
    echo "apt-get could not install ${missing[*]} (its output is above)" >&2
    exit 1
fi
