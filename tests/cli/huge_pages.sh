#!/usr/bin/env bash
# tests/cli/huge_pages.sh PROBE — collsim starts itself again, once, with glibc.malloc.hugetlb=1
# (cli/huge_pages.hpp), leaves a user's own setting alone, and COLLSIM_HUGE_PAGES=0 turns it
# off; where the kernel lends transparent huge pages (THP "always" or "madvise"), the memory
# then sits on them. PROBE is tests/cli/huge_pages_probe.cpp, which starts as collsim does.
set -u
probe=${1:?usage: huge_pages.sh PROBE}
fail=0
expect() {  # expect NAME WANTED_TUNABLES [ENV...]
  local name=$1 want=$2
  shift 2
  local got
  got=$(env -u GLIBC_TUNABLES -u COLLSIM_HUGE_PAGES "$@" "$probe" | sed -n 's/^GLIBC_TUNABLES=//p')
  if [ "$got" != "$want" ]; then
    echo "FAIL: $name: GLIBC_TUNABLES='$got', expected '$want'"
    fail=1
  fi
}
expect "default" "glibc.malloc.hugetlb=1"
expect "other tunables kept" "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1" GLIBC_TUNABLES=glibc.malloc.arena_max=4
expect "the user's own setting" "glibc.malloc.hugetlb=0" GLIBC_TUNABLES=glibc.malloc.hugetlb=0
expect "turned off" "" COLLSIM_HUGE_PAGES=0
[ "$fail" = 0 ] || exit 1

thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
case "$thp" in
  *"[always]"* | *"[madvise]"*) ;;
  *) echo "SKIPPED: the kernel lends no transparent huge pages here (THP: '${thp:-absent}'); the restart was checked"; exit 77 ;;
esac
on=$(env -u GLIBC_TUNABLES -u COLLSIM_HUGE_PAGES "$probe" | awk '/^AnonHugePages:/ { print $2 }')
if [ "${on:-0}" -lt 32768 ]; then  # of 64 MiB touched, at least half on huge pages
  echo "FAIL: 64 MiB touched, only ${on:-0} kB on huge pages (THP: $thp)"
  exit 1
fi
echo "ok: restarted once with glibc.malloc.hugetlb=1; 64 MiB touched, $on kB on huge pages"
