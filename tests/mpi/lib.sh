# Helpers of the MPI tests, on top of the hostile scripts' (../hostile/lib.sh:
# cases, fail, expect_*): mpirun as root on this machine's cores, and the
# comparison of one process with 1 to 4 ranks.
source "$(dirname "${BASH_SOURCE[0]}")/../hostile/lib.sh"

MPIEXEC=${GDEDUP_MPIEXEC:?GDEDUP_MPIEXEC must name mpirun}
# OpenMPI refuses root unless told twice; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Shared memory between the local ranks; no network interfaces probed.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# ob1, the messaging layer over those, is what each rank selects anyway;
# named, it spares each MPI_Init the probe of the network transports (cm:
# libfabric, PSM), a third of every mpirun's time here (0.67 -> 0.43 s for
# a 3-rank job), and the release build's MPI tests start 270 of them.
export OMPI_MCA_pml=ob1
RANKS=${GDEDUP_MPI_RANKS:-1 2 3 4}

# rank_choices R...: the rank counts a case tries in turn, R..., or the first
# alone under AddressSanitizer: each count's split of the work is the
# release build's to check, and a sanitized rank starts and runs several
# times as slowly (bench/RESULTS.md, CI's time).
rank_choices() {
  if [ "$SANITIZED" -eq 1 ]; then echo "$1"; else echo "$@"; fi
}

# mpirun on this machine's cores, its standard input forwarded to rank 0
# (MPIRUN_STDIN), or not (MPIRUN) for a run that reads none. Open MPI 4.1's
# mpirun crashes now and then while it forwards standard input (a
# segmentation fault in its orte_iof_hnp_read_local_handler, exit status
# 139: open-mpi/ompi#7483, not fixed in 4.1.8), which ends the job for a
# fault of mpirun's own: --stdin none spares the runs that need none.
MPIRUN_STDIN=("$MPIEXEC" --oversubscribe)
MPIRUN=("${MPIRUN_STDIN[@]}" --stdin none)

# mpirun_stdin ARGS...: mpirun ARGS with its standard input, a file,
# forwarded to rank 0; a run that mpirun crashed so is made again, up to
# twice, the file read from its start. Its stderr is held to the end, and
# its stdout must not be what the run is checked for (a crashed run may
# have written some).
mpirun_stdin() {
  [ -f /dev/stdin ] || { fail "mpirun_stdin reads a file, not a pipe"; return 1; }
  local try status err
  err=$(mktemp "${TMPDIR:-/tmp}/mpirun-stderr.XXXXXX")
  for try in 1 2 3; do
    "${MPIRUN_STDIN[@]}" "$@" </dev/stdin 2>"$err"
    status=$?
    [ "$status" -ne 0 ] && [ "$try" -lt 3 ] && stdin_crash_in "$err" || break
  done
  cat "$err" >&2
  rm -f "$err"
  return "$status"
}

# stdin_crash_in FILE: FILE, an mpirun's stderr, tells of that crash (and
# the run is made again, which this says).
stdin_crash_in() {
  grep -q orte_iof_hnp_read_local_handler "$1" 2>/dev/null || return 1
  echo "  mpirun crashed forwarding standard input (open-mpi/ompi#7483); run again" >&2
}

# again_after_stdin_crash BODY: runs the function BODY, a case whose mpirun
# forwards a FIFO (which cannot be read again, as mpirun_stdin's file is),
# in a folder of its own; a run that failed as mpirun crashed (BODY's
# stderr file tells) is made again, up to twice, in a fresh folder.
again_after_stdin_crash() {
  local case_root=$SCRATCH try
  for try in 1 2 3; do
    SCRATCH=$case_root/try$try
    mkdir -p "$SCRATCH"
    run_in_scratch "$1"
    [ -e "$SCRATCH/.failed" ] && [ "$try" -lt 3 ] && stdin_crash_in "$SCRATCH/stderr" || break
  done
  [ -e "$SCRATCH/.failed" ] && touch "$case_root/.failed"
  SCRATCH=$case_root
}

# run_mpi R ARGS...: `gdedup ARGS -q --mpi` on R ranks; as run_gdedup.
# MPI_STDIN=1: the run reads its standard input, a file (mpirun_stdin).
run_mpi() {
  local ranks=$1 mpirun=("${MPIRUN[@]}")
  shift
  [ "${MPI_STDIN:-0}" = 1 ] && mpirun=(mpirun_stdin)
  "${mpirun[@]}" -np "$ranks" "$GDEDUP" "$@" -q --mpi >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  STATUS=$?
  ERR=$(cat "$SCRATCH/stderr")
}

# one_message TEXT: stderr of the last run holds exactly one gdedup line,
# and it contains TEXT (mpirun adds its own report, which is not ours).
one_message() {
  local ours
  ours=$(grep -c '^gdedup:' <<<"$ERR")
  [ "$ours" -eq 1 ] || fail "$ours gdedup messages, expected one: $ERR"
  expect_message "$1"
}

# same_bytes COMMAND ARGS...: runs `gdedup COMMAND ARGS` in one process and
# on each of $RANKS ranks, with @OUT and @FILTER in ARGS standing for each
# run's own output and filter file (a copy of $START when START is set), and
# fails unless every run exits with $EXPECT_STATUS (0 unless set) and the
# same bytes as the one process.
same_bytes() {
  local run ranks status
  for run in one $RANKS; do
    local out="$run.out" filter="$run.gdf" args=() a
    rm -f "$out" "$filter"
    [ -n "${START:-}" ] && cp "$START" "$filter"
    for a in "$@"; do
      a=${a//@OUT/$out}
      args+=("${a//@FILTER/$filter}")
    done
    if [ "$run" = one ]; then
      "$GDEDUP" "${args[@]}" -q 2>"$run.err"
    else
      "${MPIRUN[@]}" -np "$run" "$GDEDUP" "${args[@]}" -q --mpi 2>"$run.err"
    fi
    status=$?
    [ "$status" -eq "${EXPECT_STATUS:-0}" ] ||
      { fail "$* on $run: exit $status: $(cat "$run.err")"; continue; }
    [ "$run" = one ] && continue
    if [ -e one.out ] && ! cmp -s one.out "$out"; then
      fail "$* on $run ranks: the output differs from one process's"
    fi
    if [ -e one.gdf ] && ! cmp -s one.gdf "$filter"; then
      fail "$* on $run ranks: the filter file differs from one process's"
    fi
  done
}

# Lines of varied length (1 to ~120 bytes) over `keys` distinct keys, with
# empty records, from awk seed `seed`.
random_lines() {  # COUNT KEYS SEED
  awk -v n="$1" -v keys="$2" -v seed="$3" 'BEGIN {
    srand(seed)
    for (i = 0; i < n; i++) {
      k = int(rand() * keys)
      if (k % 97 == 0) { print ""; continue }
      pad = substr("................................................................................", 1, k % 80)
      print "https://h" (k % 13) ".example/p/" k "/" pad
    }
  }'
}

# fingerprints COUNT KEYS SEED: COUNT 8-byte fingerprints drawn with seed
# SEED from the same KEYS values.
fingerprints() {
  python3 -c "
import random, struct, sys
random.seed(1)
values = [random.getrandbits(64) for _ in range($2)]
random.seed($3)
sys.stdout.buffer.write(b''.join(struct.pack('<Q', random.choice(values)) for _ in range($1)))"
}

# start_ranks R BIN ARGS...: `BIN ARGS -q --mpi` on R ranks in the
# background, stdout and stderr to ./stdout and ./stderr. Returns once all R
# are running, with mpirun's pid in LAUNCHER and the ranks' in PIDS, in
# launch order (rank order); fails and returns 1 if they do not start in
# 10 s.
start_ranks() {
  local ranks=$1 bin=$2 i
  shift 2
  "${MPIRUN[@]}" -np "$ranks" "$bin" "$@" -q --mpi >stdout 2>stderr &
  LAUNCHER=$!
  PIDS=()
  for i in $(seq 1 200); do
    mapfile -t PIDS < <(pgrep -P "$LAUNCHER" -f "$bin")
    [ "${#PIDS[@]}" -eq "$ranks" ] && return 0
    sleep 0.05
  done
  fail "the $ranks ranks did not start: $(cat stderr)"
  kill "$LAUNCHER"
  return 1
}

# wait_ranks: waits for the mpirun of start_ranks, at most 60 s (then
# fails and kills it); its exit status is then in STATUS.
wait_ranks() {
  local waited=0
  while kill -0 "$LAUNCHER" 2>/dev/null && [ "$waited" -lt 600 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$LAUNCHER" 2>/dev/null; then
    fail "mpirun still runs after 60 s"
    kill -KILL "$LAUNCHER"
  fi
  wait "$LAUNCHER"
  STATUS=$?
}
