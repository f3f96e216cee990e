#!/usr/bin/env bash
# scripts/gpu-bundle.sh — pack a built collsim so that its GPU backends (cuda, nccl) run on a
# GPU machine that has none of Debian's libraries and no network (the device tool's H100/H200
# machines: x86-64, Ubuntu-like, glibc 2.39 >= Debian 12's 2.36, driver 580, CUDA 13 toolkit,
# NCCL perhaps only in the pip package nvidia-nccl-cu13 of a Python venv).
#
# Usage:  bash scripts/gpu-bundle.sh [--plain] [BUILD_DIR [OUT_DIR]]
#           BUILD_DIR  an already built tree (default: build); run `make build` first
#           OUT_DIR    the bundle folder, recreated (default: gpu-bundle, inside the repo;
#                      it must be a path git ignores: add `/gpu-bundle/` to .gitignore)
#           --plain    leave lib/ unpacked (about 41 MiB) instead of lib.tar.gz (about 15 MiB)
#
# With the device tool (the working tree plus carried paths must stay under 64 MiB):
#   run  carry=["gpu-bundle"]
#        command="gpu-bundle/run.sh collsim run --backend cuda --ranks 8 --algo ring --bytes 64M"
#   `gpu-bundle/run.sh` alone prints what it found (libcudart, libnccl, LD_LIBRARY_PATH).
#
# The bundle:
#   bin/         collsim, collsim-gpu-worker (collsim finds the worker next to itself) and
#                collsim-gpu-microbench (execute/microbench/: the GPU's own figures, as CSV)
#   gpu-validate.sh  scripts/gpu-validate.sh: every GPU check of issue 35 in one bounded command
#                (`gpu-bundle/gpu-validate.sh $OUT`; its header says how a session runs it)
#   lib.tar.gz   every shared library they load per ldd (SimGrid, ns-3, gsl, gfortran, yaml-cpp,
#                fmt, boost, sqlite, libstdc++, libgcc_s...), except glibc's own, the CUDA
#                driver (libcuda, from the machine's driver), libcudart and libnccl (from the
#                machine's toolkit / pip package: libnccl alone is ~200 MB). run.sh unpacks it
#                once per machine into ${TMPDIR:-/tmp}/collsim-gpu-bundle-<hash>/ (not into
#                the bundle, so that the carried folder stays small). With --plain: lib/.
#   run.sh       run.sh CMD ARGS...: finds libcudart.so.13 and libnccl.so.2 on the machine, sets
#                PATH (bundle's bin/ first) and LD_LIBRARY_PATH (bundle's libs, then those
#                folders), then execs CMD. Meant for collsim's binaries only: the bundled
#                libstdc++ (GCC 12) comes first, which newer programs (python3, torch) may refuse.
#   MANIFEST.txt what went in, with sizes.
#
# Not bundled: the MPI workers (collsim-mpi-worker, collsim-mpi-cuda-worker). Open MPI needs
# far more than its shared libraries (mpirun/orted, its dlopen'ed MCA plugins and help files
# at Debian's absolute paths), so the mpi and mpi+cuda backends are not available from this
# bundle; asking for them says "backend 'mpi' is not built" (the worker is not next to collsim).
#
# NCCL: collsim-gpu-worker links libnccl.so.2 (NEEDED), so where run.sh finds no libnccl the
# worker cannot start at all (cuda backend included); run.sh warns in one line and goes on.
set -euo pipefail

usage() { sed -n '7,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plain=0
args=()
for a in "$@"; do
  case "$a" in
    --plain) plain=1 ;;
    -h|--help) usage ;;
    -*) echo "gpu-bundle: unknown option $a" >&2; usage ;;
    *) args+=("$a") ;;
  esac
done
[ "${#args[@]}" -le 2 ] || usage
build=${args[0]:-$repo/build}
out=${args[1]:-$repo/gpu-bundle}

# --- the binaries --------------------------------------------------------------------------
bins=(collsim collsim-gpu-worker collsim-gpu-microbench)
for b in "${bins[@]}"; do
  if [ ! -x "$build/bin/$b" ]; then
    if [ "$b" != collsim ] && [ -x "$build/bin/collsim" ]; then
      echo "gpu-bundle: $build/bin/$b is missing: build it (cmake --build $build --target $b); a build configured without the CUDA toolkit has nothing to bundle for a GPU" >&2
    else
      echo "gpu-bundle: $build/bin/$b is missing: run \`make build\` (or BUILD_DIR=$build make build) first" >&2
    fi
    exit 2
  fi
done

# Never delete a folder this script did not make.
marker=.collsim-gpu-bundle
if [ -e "$out" ] && [ ! -e "$out/$marker" ]; then
  echo "gpu-bundle: $out exists and is not a bundle made by this script; remove it or name another OUT_DIR" >&2
  exit 2
fi
rm -rf "${out:?}"
mkdir -p "$out/bin" "$out/lib"
touch "$out/$marker"
for b in "${bins[@]}"; do cp -p "$build/bin/$b" "$out/bin/"; done
cp -p "$repo/scripts/gpu-validate.sh" "$out/gpu-validate.sh"

# --- the shared libraries ------------------------------------------------------------------
# ldd is recursive: one call per binary lists everything the loader maps. Left out: glibc's
# libraries (the machine's newer glibc serves them), the driver's libcuda / libnvidia-*, and
# libcudart / libnccl (taken from the machine by run.sh).
is_excluded() {
  case "$1" in
    linux-vdso.so.*|ld-linux*.so.*|libc.so.*|libm.so.*|libmvec.so.*|libpthread.so.*|libdl.so.*) return 0 ;;
    librt.so.*|libresolv.so.*|libutil.so.*|libanl.so.*|libnsl.so.*|libnss_*|libBrokenLocale.so.*) return 0 ;;
    libthread_db.so.*|libc_malloc_debug.so.*|libmemusage.so|libpcprofile.so|libSegFault.so) return 0 ;;
    libcuda.so*|libnvidia-*|libcudart.so*|libnccl.so*) return 0 ;;
  esac
  return 1
}

missing=0
while read -r name arrow path _; do
  [ "$arrow" = "=>" ] || continue                # the vdso and the loader have no "=>"
  is_excluded "$name" && continue
  if [ "$path" = "not" ]; then                    # "libfoo.so => not found"
    echo "gpu-bundle: $name is not found here (ldd); fix the build machine first" >&2
    missing=1; continue
  fi
  [ -e "$out/lib/$name" ] || cp -L "$path" "$out/lib/$name"   # under its soname, symlinks resolved
done < <(for b in "${bins[@]}"; do LD_LIBRARY_PATH='' ldd "$out/bin/$b"; done)
[ "$missing" = 0 ] || exit 2

# Newest glibc symbol version anything here needs (must be <= the GPU machine's 2.39).
glibc_need="unknown (objdump missing)"
if command -v objdump >/dev/null; then
  glibc_need=$(objdump -T "$out"/bin/* "$out"/lib/* 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -n1)
fi

{
  echo "collsim GPU bundle, made $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(cd "$build" && pwd)"
  echo "collsim --version: $("$build/bin/collsim" --version 2>&1 | head -n1)"
  echo "needs: glibc symbols up to $glibc_need; from the machine: libcuda (driver), libcudart.so.13, libnccl.so.2"
  echo
  echo "bytes  file"
  (cd "$out" && find bin lib -type f -printf '%s  %p\n' | sort -k2)
} > "$out/MANIFEST.txt"
lib_bytes=$(du -sb "$out/lib" | cut -f1)

if [ "$plain" = 0 ]; then
  # Reproducible archive (same libraries, same bytes, same lib.id): run.sh's cache is reused.
  tar -C "$out" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - lib | gzip -n > "$out/lib.tar.gz"
  rm -rf "${out:?}/lib"
  sha256sum "$out/lib.tar.gz" | cut -c1-16 > "$out/lib.id"
fi

# --- run.sh, the wrapper used on the GPU machine ---------------------------------------------
cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# run.sh CMD ARGS...: run one of collsim's programs from this bundle (made by
# scripts/gpu-bundle.sh). Sets PATH and LD_LIBRARY_PATH, then execs CMD; with no CMD, prints
# what it found. COLLSIM_CUDART_DIR / COLLSIM_NCCL_DIR name the folders of libcudart.so.13 /
# libnccl.so.2 when the search below misses them.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# 1. The bundled libraries: lib/, or lib.tar.gz unpacked once per machine outside the bundle.
if [ -d "$here/lib" ]; then
  libdir=$here/lib
else
  cache=${TMPDIR:-/tmp}/collsim-gpu-bundle-$(cat "$here/lib.id")
  libdir=$cache/lib
  if [ ! -e "$libdir/.complete" ]; then
    tmp=$(mktemp -d "$cache.XXXXXX")
    tar -C "$tmp" -xzf "$here/lib.tar.gz"
    touch "$tmp/lib/.complete"
    if mv -T "$tmp" "$cache" 2>/dev/null; then :             # first run on this machine
    elif [ -e "$libdir/.complete" ]; then rm -rf "$tmp"       # another run got there first
    else libdir=$tmp/lib                                      # a broken leftover: use ours
    fi
  fi
fi

# 2. libcudart.so.13 and libnccl.so.2 from the machine (never bundled).
cuda_dirs=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib)
ld_cache=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p 2>/dev/null || true)   # the system loader's list
in_ld_cache() { case "$ld_cache" in *"	$1 "*) return 0 ;; esac; return 1; }
# The folder of a pip package's lib/ (e.g. nvidia.nccl -> .../site-packages/nvidia/nccl/lib).
pip_dir() {
  command -v python3 >/dev/null || return 0
  python3 - "$1" "$2" 2>/dev/null <<'PY' || true
import importlib.util, os, sys
try:
    spec = importlib.util.find_spec(sys.argv[1])
except Exception:
    spec = None
for d in (spec.submodule_search_locations or []) if spec else []:
    if os.path.exists(os.path.join(d, "lib", sys.argv[2])):
        print(os.path.join(d, "lib")); break
PY
}
# find_lib SONAME OVERRIDE PIP_MODULE...: prints the folder to add, "ld.so.cache" when the
# system's loader already finds it, nothing when it is nowhere.
find_lib() {
  local so=$1 override=$2 d; shift 2
  if [ -n "$override" ] && [ -e "$override/$so" ]; then echo "$override"; return; fi
  for d in "${cuda_dirs[@]}"; do [ -e "$d/$so" ] && { echo "$d"; return; }; done
  if in_ld_cache "$so"; then echo ld.so.cache; return; fi
  for m in "$@"; do d=$(pip_dir "$m" "$so"); [ -n "$d" ] && { echo "$d"; return; }; done
  d=$(find /opt /usr/local/lib/python3* /usr/lib/python3* -maxdepth 10 -name "$so" -print -quit 2>/dev/null || true)
  [ -n "$d" ] && dirname "$d"
  return 0
}
cudart=$(find_lib libcudart.so.13 "${COLLSIM_CUDART_DIR:-}" nvidia.cu13 nvidia.cuda_runtime)
nccl=$(find_lib libnccl.so.2 "${COLLSIM_NCCL_DIR:-}" nvidia.nccl)

searched="searched /usr/local/cuda/{lib64,lib,targets/x86_64-linux/lib}, ld.so.cache, python3's nvidia.* packages, /opt, /usr/{local/,}lib/python3*"
[ -n "$cudart" ] || echo "gpu-bundle: warning: libcudart.so.13 not found ($searched; set COLLSIM_CUDART_DIR): collsim-gpu-worker cannot start, the cuda and nccl backends fail" >&2
[ -n "$nccl" ] || echo "gpu-bundle: warning: libnccl.so.2 not found ($searched; set COLLSIM_NCCL_DIR or install nvidia-nccl-cu13): collsim-gpu-worker links it, so it cannot start" >&2

ld=$libdir
for d in "$cudart" "$nccl"; do
  case "$d" in ""|ld.so.cache) ;; *) case ":$ld:" in *":$d:"*) ;; *) ld=$ld:$d ;; esac ;; esac
done
export LD_LIBRARY_PATH=$ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$here/bin:$PATH

if [ "$#" = 0 ]; then
  echo "bundle:          $here"
  echo "bundled libs:    $libdir"
  echo "libcudart.so.13: ${cudart:-NOT FOUND}"
  echo "libnccl.so.2:    ${nccl:-NOT FOUND}"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  if command -v nvidia-smi >/dev/null; then nvidia-smi -L || true; fi
  exit 0
fi
exec "$@"
RUN
chmod +x "$out/run.sh"

# --- report --------------------------------------------------------------------------------
echo "gpu-bundle: $out ($(du -sh "$out" | cut -f1); shared libraries $((lib_bytes / 1048576)) MiB unpacked$([ "$plain" = 0 ] && echo ", $(du -h "$out/lib.tar.gz" | cut -f1) as lib.tar.gz"))"
echo "gpu-bundle: largest files:"
(cd "$out" && sed -n '/^bytes/,$p' MANIFEST.txt | tail -n +2 | sort -rn | head -n 6 | awk '{printf "  %6.1f MiB  %s\n", $1/1048576, $2}')
echo "gpu-bundle: needs glibc symbols up to $glibc_need on the GPU machine"
echo "gpu-bundle: use: device run, carry [\"$(basename "$out")\"], command \"$(basename "$out")/run.sh collsim run --backend cuda ...\""
