#!/usr/bin/env bash
# tests/cli/huge_pages.sh PROBE — collsim starts itself again, once, with glibc.malloc.hugetlb=1
# (cli/huge_pages.hpp) and gives the caller's GLIBC_TUNABLES back to the programs it starts;
# it leaves a user's own setting alone, and COLLSIM_HUGE_PAGES=0 turns it off. Whether it
# restarted shows in its memory: on huge pages where the kernel lends them only on request
# (THP "madvise"), always where it lends them to all ("always"; then only the restart's
# bookkeeping is checked), never where it lends none (skipped). PROBE is
# tests/cli/huge_pages_probe.cpp, which starts as collsim does.
set -u
probe=${1:?usage: huge_pages.sh PROBE}
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
fail=0
expect() {  # expect NAME CHILDREN_GET HUGE(yes|no) [ENV...]
  local name=$1 children=$2 huge=$3
  shift 3
  local out got_children left kb on=no
  out=$(env -u GLIBC_TUNABLES -u COLLSIM_HUGE_PAGES -u COLLSIM_CALLER_GLIBC_TUNABLES "$@" "$probe")
  got_children=$(sed -n 's/^children get GLIBC_TUNABLES=//p' <<< "$out")
  left=$(sed -n 's/^restart variable left: //p' <<< "$out")
  kb=$(awk '/^AnonHugePages:/ { print $2 }' <<< "$out")
  [ "${kb:-0}" -ge 32768 ] && on=yes  # of 64 MiB touched, at least half on huge pages
  if [ "$got_children" != "$children" ] || [ "$left" != "no" ]; then
    echo "FAIL: $name: children get '$got_children' (expected '$children'), restart variable left: $left"
    fail=1
  fi
  if [[ "$thp" == *"[madvise]"* ]] && [ "$on" != "$huge" ]; then
    echo "FAIL: $name: ${kb:-0} kB of 64 MiB on huge pages (expected huge pages: $huge; THP: $thp)"
    fail=1
  fi
}
expect "default" "" yes
expect "other tunables kept" "glibc.malloc.arena_max=4" yes GLIBC_TUNABLES=glibc.malloc.arena_max=4
expect "the user's own setting" "glibc.malloc.hugetlb=0" no GLIBC_TUNABLES=glibc.malloc.hugetlb=0
expect "turned off" "" no COLLSIM_HUGE_PAGES=0
[ "$fail" = 0 ] || exit 1
case "$thp" in
  *"[madvise]"*) echo "ok: restarted once onto huge pages, the caller's tunables given back (THP: $thp)" ;;
  *"[always]"*) echo "ok: the caller's tunables given back (THP 'always': every process gets huge pages, so they do not tell a restart)" ;;
  *) echo "SKIPPED: the kernel lends no transparent huge pages here (THP: '${thp:-absent}'); the caller's tunables were given back"; exit 77 ;;
esac
