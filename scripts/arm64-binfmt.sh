#!/usr/bin/env bash
# Lets the kernel run aarch64 programs through qemu-aarch64-static (binfmt_misc), as
# systemd-binfmt does at boot where qemu-user-static is installed: the Arm test suite's programs
# start child processes of their own (the `ember` command, `ember run`'s workers, a test binary
# re-run as a child), which CTest's emulator prefix cannot reach. Registers Debian's entry
# (/usr/lib/binfmt.d/qemu-aarch64.conf); needs root (make test-arm64 says what fails without it).
set -euo pipefail
bm=/proc/sys/fs/binfmt_misc
[[ -e $bm/qemu-aarch64 ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
  echo "arm64-binfmt: not root: aarch64 programs started by the tests will not run (no binfmt_misc entry)" >&2
  exit 0
fi
[[ -e $bm/register ]] || mount -t binfmt_misc binfmt_misc "$bm"
cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$bm/register"
echo "arm64-binfmt: aarch64 programs run through $(sed 's/.*:\(\/[^:]*\):[A-Z]*$/\1/' /usr/lib/binfmt.d/qemu-aarch64.conf)"
