#!/usr/bin/env bash
# apt-install.sh LABEL PACKAGE...: install Debian packages for the tests' set-up scripts. Uses sudo when not
# root; waits (up to 10 minutes) for another apt or dpkg run to finish instead of failing on its lock.
set -euo pipefail
label=$1
shift
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "$label: not root and no sudo; install these Debian packages by hand: $*" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
wait_s=${TETHER_APT_LOCK_TIMEOUT:-600}

# apt-get install waits for the dpkg lock by itself (DPkg::Lock::Timeout); apt-get update does not wait for
# the package lists' lock (apt 2.6), so it is retried while another run holds that lock.
waited=0
until out=$($sudo apt-get update -qq 2>&1); do
  if ! grep -q "Could not get lock" <<<"$out" || [ "$waited" -ge "$wait_s" ]; then
    echo "$out" >&2
    exit 1
  fi
  [ "$waited" -eq 0 ] && echo "$label: another apt run holds the package lists; waiting (up to ${wait_s} s)"
  sleep 5
  waited=$((waited + 5))
done
$sudo apt-get -o "DPkg::Lock::Timeout=$wait_s" install -y -qq --no-install-recommends "$@" >/dev/null
