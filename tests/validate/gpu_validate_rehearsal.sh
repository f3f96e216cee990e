#!/usr/bin/env bash
# tests/validate/gpu_validate_rehearsal.sh REPO BUILD_DIR — the GPU run of issue 35 rehearsed
# without a GPU: scripts/gpu-bundle.sh packs the build, and the bundle's copy of
# scripts/gpu-validate.sh runs with --rehearse and a 150 s budget into a temporary folder.
# Asserts: OUT_DIR holds summary.txt and results.tar.gz only (the device tool returns at most
# 8 files); the summary names every step in order, none FAILED; every step that ran a GPU
# command saw it end with "no CUDA device" (its arguments parse, its program starts);
# machine, smoke, microbench and run-p2 ran (cheap, and in any budget), every run verified;
# the archive holds each file the steps that ran must leave; the run kept to its budget.
# Skipped (77) where the CUDA toolkit or MPI was not found (nothing to bundle or stand in).
set -u
repo=$1
build=$2
for b in collsim collsim-gpu-worker collsim-gpu-microbench collsim-mpi-cuda-worker; do
  [ -x "$build/bin/$b" ] || { echo "SKIPPED: $build/bin/$b not built (needs the CUDA toolkit and MPI)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp   # run.sh's unpacked libraries and the script's work folder go here too
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

bash "$repo/scripts/gpu-bundle.sh" "$build" "$tmp/gpu-bundle" > "$tmp/bundle.log" 2>&1 ||
  { echo "FAIL: gpu-bundle.sh: $(tail -n 3 "$tmp/bundle.log")"; exit 1; }
for f in bin/collsim-gpu-microbench gpu-validate.sh run.sh; do
  [ -x "$tmp/gpu-bundle/$f" ] || fail "the bundle has no $f"
done

budget=150
began=$SECONDS
"$tmp/gpu-bundle/gpu-validate.sh" --rehearse --bin "$build/bin" --budget "$budget" "$tmp/out" 2> "$tmp/stderr"
rc=$?
took=$((SECONDS - began))
summary=$tmp/out/summary.txt
[ -f "$summary" ] || { echo "FAIL: no summary.txt (exit $rc): $(tail -n 5 "$tmp/stderr")"; exit 1; }
cat "$summary"

files=$(cd "$tmp/out" && ls -A | tr '\n' ' ')
[ "$files" = "results.tar.gz summary.txt " ] || fail "OUT_DIR holds '$files', not summary.txt and results.tar.gz alone"
[ "$took" -le $((budget + 15)) ] || fail "took $took s on a budget of $budget s"
grep -q '^collsim gpu-validate: REHEARSAL' "$summary" || fail "the summary does not say it is a rehearsal"

# status_of STEP: the step's status column.
status_of() { awk -v s="$1" '$1 == s { print $2; exit }' "$summary"; }
# notes_of STEP: the indented lines under the step.
notes_of() { awk -v s="$1" '/^[^ ]/ { on = ($1 == s); next } on' "$summary"; }
steps="machine smoke microbench calibrate validate run-p2 run-p4 run-p8 after"
order=$(grep -E '^[a-z][a-z0-9-]* +(ok|skipped|FAILED|TIMED-OUT) ' "$summary" | awk '{ print $1 }' | tr '\n' ' ')
[ "$order" = "$steps " ] || fail "steps in the summary: '$order', wanted '$steps '"
for s in $steps; do
  st=$(status_of "$s")
  case "$st" in
    ok) ;;
    skipped) notes_of "$s" | grep -q "skipped: .* s of the budget left" || fail "$s skipped without saying why" ;;
    TIMED-OUT) case "$s" in
                 calibrate|validate) echo "note: $s's stand-in (MPI, on this machine's shared cores) ran past its share of the budget" ;;
                 *) fail "$s timed out" ;;
               esac ;;
    *) fail "$s: status '$st': $(notes_of "$s" | tr '\n' ' ')" ;;
  esac
  case "$s" in
    machine|after) ;;
    *) if [ "$st" != skipped ] && ! notes_of "$s" | grep -q "GPU command checked: exit 2, no CUDA device"; then
         fail "$s: its GPU command was not seen to end with 'no CUDA device'"
       fi ;;
  esac
done
for s in machine smoke microbench run-p2; do
  [ "$(status_of "$s")" = ok ] || fail "$s did not run ok"
done
for s in smoke run-p2 run-p4 run-p8 calibrate validate; do
  [ "$(status_of "$s")" = ok ] && ! notes_of "$s" | grep -q "stand-in:" && fail "$s ran ok without naming its stand-in"
done

mkdir "$tmp/unpacked"
tar -xzf "$tmp/out/results.tar.gz" -C "$tmp/unpacked" || fail "results.tar.gz does not unpack"
for s in $steps; do   # every step that ran has its log (machine's may be empty: it writes machine.txt)
  [ "$(status_of "$s")" = skipped ] || [ -f "$tmp/unpacked/logs/$s.log" ] || fail "results.tar.gz has no logs/$s.log"
done
want="summary.txt machine.txt"
for p in 2 4 8; do [ "$(status_of "run-p$p")" = ok ] && want="$want run-p$p.csv"; done
[ "$(status_of calibrate)" = ok ] && want="$want calibration.yaml"
[ "$(status_of validate)" = ok ] && want="$want validate/results.csv validate/results.md validate/plot.svg validate/machine.md validate/calibrated.yaml"
for f in $want; do [ -s "$tmp/unpacked/$f" ] || fail "results.tar.gz has no $f (or it is empty)"; done
cmp -s "$summary" "$tmp/unpacked/summary.txt" || fail "the archive's summary.txt is not the final one"
for p in 2 4 8; do
  [ "$(status_of "run-p$p")" = ok ] || continue
  notes_of "run-p$p" | grep -q "every one verified" || fail "run-p$p: not every row verified"
done
grep -q "no CUDA device" "$tmp/unpacked/logs/microbench.log" || fail "the microbenchmark's log does not say 'no CUDA device'"

[ "$failed" = 0 ] || { echo "$failed check(s) failed; stderr: $(tail -n 5 "$tmp/stderr")"; exit 1; }
echo "ok: rehearsal in $took s of $budget s"
