#!/usr/bin/env bash
# The library's boundaries, checked on its sources (docs/ARCHITECTURE.md).
# Fails naming each file and what it must not hold:
#  - the command (src/cli) includes only the public headers (gdedup/...) and
#    its own (cli/...): anything it needs, a Python package or another front
#    end needs too, so it belongs in include/gdedup: in the library's API, or
#    in include/gdedup/frontend/ where only front ends need it;
#  - the Python module (python/src) likewise includes only the public
#    headers and its own (no folder): it is built on what any front end
#    gets;
#  - a public header includes only other public headers, and a header of
#    the API (include/gdedup/) none of include/gdedup/frontend/, which is not
#    installed: so that an installed copy compiles without the sources;
#  - every folder of the library includes only its own headers and those of
#    the layers below it, and a public header only those of its own layer
#    and below (the layer order and each public header's layer: the table
#    below, the one place that states them; a header under src/ is of its
#    folder's layer);
#  - no getenv in src/, include/ or kernels/: the library takes its choices
#    as options, and a program that links it decides what its users may set.
#    The one exception is the command's src/cli/mpi_launch.cpp, which reads
#    what an MPI launcher tells the processes it starts;
#  - no descriptor opened by the library or the Python module but through
#    src/fs/descriptors.h, which keeps it off 0, 1 and 2: a program that runs
#    with a standard stream closed would otherwise give that stream's number
#    to a file of the engine (the command holds its streams first);
#  - no front end's flag ("--exact": two dashes and a letter, after a
#    space, a quote or an opening bracket) in a string literal of the library (src/ but src/cli,
#    include/, kernels/): a message names an option through OptionNames
#    (gdedup/option_names.h), which each front end fills with its words
#    ("--capacity", "capacity="), and a layer with no OptionNames at hand
#    says what is wrong in the library's words and gives the error a kind,
#    by which the front end adds its own advice (src/cli/error_advice.cpp,
#    python/gdedup/_errors.py). Comments may name flags: only string
#    literals count (read by a small C++ lexer in Perl,
#    tests/string_literals.pl: comments, strings, raw strings, characters,
#    digit separators);
#  - no OS call in the library outside src/fs, which returns an errno and
#    leaves the words to its callers, and where tests watch and break the
#    calls (its Observer). Checked on the compiled objects, so that a call
#    made through a macro or an inline function of a header counts too:
#    `nm -u` of each object that a target of BUILD_DIR made from a source of
#    src/ but src/fs and src/cli, against the system-call wrappers of the C
#    library (os_calls below). The C++ library's own calls (threads,
#    mutexes, sleeps) and writes to an open standard stream are not OS calls
#    here. kernels/ is left out: the CUDA headers (NVTX, through CUB) put
#    their own dlopen and getenv into every object that includes them.
#    Skipped, saying so, when no build folder is given.
# Usage: layering_check.sh SOURCE_ROOT [BUILD_DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=""
if [ -n "${2:-}" ]; then
  build=$(cd "$2" && pwd) || exit 2
fi
cd "${1:?usage: $0 SOURCE_ROOT [BUILD_DIR]}" || exit 2
failed=0

# Prints "FILE: includes HEADER" for each quoted include in FILES... whose
# header does not start with one of the allowed prefixes (a regex).
includes_outside() {
  local allowed=$1
  shift
  grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" |
    sed -E 's/^([^:]*):([0-9]+):[^"]*"([^"]*)".*/\1:\2: includes \3/' |
    grep -vE ": includes (${allowed})" || true
}

found=$(includes_outside 'cli/|gdedup/' src/cli/*.cpp src/cli/*.h)
if [ -n "$found" ]; then
  echo "src/cli includes an internal header; give include/gdedup/ a public one for what it needs:" >&2
  echo "$found" >&2
  failed=1
fi

found=$(includes_outside 'gdedup/|[^/]+$' python/src/*.cpp python/src/*.h)
if [ -n "$found" ]; then
  echo "python/src includes an internal header; give include/gdedup/ a public one for what it needs:" >&2
  echo "$found" >&2
  failed=1
fi

# The public headers: the library's API (include/gdedup/) and what the front
# ends need besides it (include/gdedup/frontend/, not installed).
shopt -s nullglob
api_headers=(include/gdedup/*.h)
frontend_headers=(include/gdedup/frontend/*.h)
shopt -u nullglob

found=""
[ $(( ${#api_headers[@]} + ${#frontend_headers[@]} )) -eq 0 ] ||
  found=$(includes_outside 'gdedup/' "${api_headers[@]}" "${frontend_headers[@]}")
if [ -n "$found" ]; then
  echo "a public header includes one that is not installed; include only gdedup/ headers:" >&2
  echo "$found" >&2
  failed=1
fi

found=""
[ "${#api_headers[@]}" -eq 0 ] ||
  found=$(includes_outside 'gdedup/[^/]+$' "${api_headers[@]}" | grep ': includes gdedup/')
if [ -n "$found" ]; then
  echo "a header of the library's API includes a front end's (gdedup/frontend/, not" \
    "installed); move what it needs into the API, or the header into frontend/:" >&2
  echo "$found" >&2
  failed=1
fi

# The layers, lowest first: each line is a layer's folders (src/X, and
# kernels/), then after the colon the public headers it implements. "base"
# is the headers every layer may use. The command and the Python module sit
# on top (checked above).
layers=(
  "base: error.h layout.h fingerprint.h mode.h option_names.h"
  "fs: frontend/paths.h frontend/path_lock.h frontend/live_temporaries.h
   frontend/mapping_guard.h frontend/path_text.h frontend/standard_streams.h"
  "core: planner.h filter.h backend.h host_buffer.h growth.h layered_filter.h filter_summary.h
   key_set.h frontend/number_text.h frontend/json.h"
  "keys: key_options.h key_extractor.h key_rules.h key_hasher.h"
  "cpu cuda kernels io columnar: gpu.h stream_point.h frontend/output_writer.h"
  "format: filter_file.h filter_merge.h checkpoint.h set_file.h frontend/filter_report.h"
  "backends: backend_registry.h"
  "pipeline: pipeline.h"
  "mpi: frontend/mpi.h"
  "job: job.h job_target.h merge_job.h guarded_save.h live_filter.h live_set.h
   frontend/job_files.h frontend/rank_job.h"
)
declare -A folder_level header_level
for i in "${!layers[@]}"; do
  for f in ${layers[$i]%%:*}; do folder_level[$f]=$i; done
  for h in ${layers[$i]#*:}; do header_level[$h]=$i; done
done

# upward FOLDER_LEVEL OWN_FOLDER FILES...: prints each include in FILES of a
# header of a higher layer, of a folder of the same layer, or of no layer.
upward() {
  local level=$1 own=$2 file line header folder
  shift 2
  for file in "$@"; do
    while IFS= read -r line; do
      header=${line#*\"}
      header=${header%%\"*}
      case $header in
        gdedup/*)
          [ -n "${header_level[${header#gdedup/}]:-}" ] ||
            { echo "$file: includes $header, which the table gives no layer"; continue; }
          [ "${header_level[${header#gdedup/}]}" -le "$level" ] || echo "$file: includes $header" ;;
        */*)
          folder=${header%%/*}
          [ "$folder" = "$own" ] && continue
          [ -n "${folder_level[$folder]:-}" ] && [ "${folder_level[$folder]}" -lt "$level" ] ||
            echo "$file: includes $header" ;;
      esac
    done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file")
  done
}

found=""
shopt -s nullglob
for folder in "${!folder_level[@]}"; do
  dir=src/$folder
  [ "$folder" = kernels ] && dir=kernels
  [ -d "$dir" ] || continue
  found+=$(upward "${folder_level[$folder]}" "$folder" "$dir"/*.cpp "$dir"/*.cu "$dir"/*.h)$'\n'
done
for header in "${api_headers[@]}" "${frontend_headers[@]}"; do
  name=${header#include/gdedup/}
  if [ -z "${header_level[$name]:-}" ]; then
    found+="$header: has no layer in the table of tests/layering_check.sh"$'\n'
    continue
  fi
  found+=$(upward "${header_level[$name]}" "" "$header")$'\n'
done
shopt -u nullglob
found=$(sed '/^$/d' <<<"$found")
if [ -n "$found" ]; then
  echo "a layer includes a header of a layer above it (or of one beside it); move the code" \
    "down, or the include up (the layers: tests/layering_check.sh):" >&2
  echo "$found" >&2
  failed=1
fi

found=$(grep -rnE '\b(secure_)?getenv\b' src include kernels | grep -v '^src/cli/mpi_launch\.cpp:')
if [ -n "$found" ]; then
  echo "getenv in the sources; make it an option the caller fills instead:" >&2
  echo "$found" >&2
  failed=1
fi
found=$(grep -rnE '(^|[^A-Za-z0-9_>.])::(open|openat|creat|dup[23]?|pipe2?|mkstemp|mkostemp|socket|memfd_create)\s*\(|\bfopen\s*\(|std::[io]?fstream\b' \
  src include kernels python/src |
  grep -vE '^src/(cli/|fs/descriptors\.cpp:|fs/standard_streams\.cpp:)')
if [ -n "$found" ]; then
  echo "a descriptor opened outside src/fs/descriptors.h, where a closed standard stream's" \
    "number could be taken; open through it:" >&2
  echo "$found" >&2
  failed=1
fi

# Prints "FILE:LINE: LITERAL" for each string literal of FILES... that holds
# a flag (tests/string_literals.pl).
flags_in_strings() {
  perl "$here/string_literals.pl" '(^|[\s(\[{"\x27\x60,;=])--[a-z]' "$@"
}
if ! command -v perl >/dev/null; then
  echo "layering_check: perl is needed to read the library's string literals" >&2
  failed=1
else
  mapfile -d '' library < <(find src include kernels -path src/cli -prune -o -type f \
    \( -name '*.cpp' -o -name '*.cc' -o -name '*.h' -o -name '*.hpp' -o -name '*.cu' \
    -o -name '*.cuh' \) -print0 2>/dev/null | sort -z)
  found=""
  [ "${#library[@]}" -eq 0 ] || found=$(flags_in_strings "${library[@]}")
  if [ -n "$found" ]; then
    echo "a front end's flag in a string literal of the library; name the option through" \
      "OptionNames (gdedup/option_names.h), or say it in the library's words with an ErrorKind" \
      "by which the front end adds its advice (src/cli/error_advice.cpp):" >&2
    echo "$found" >&2
    failed=1
  fi
fi

# The C library's wrappers of system calls, by name: a call matches with a
# leading "__" (__sysconf), "64" (open64, fstat64) and fortify's "_chk" or
# "_2" (__read_chk, __open_2) as the compiler may emit them.
os_calls=(
  # files and descriptors
  open openat openat2 creat close close_range closefrom read write pread pwrite readv writev
  preadv pwritev preadv2 pwritev2 lseek llseek dup dup2 dup3 pipe pipe2 fcntl ioctl
  stat fstat lstat fstatat newfstatat statx statfs fstatfs statvfs fstatvfs
  access faccessat faccessat2 euidaccess eaccess unlink unlinkat remove rename renameat
  renameat2 link linkat symlink symlinkat readlink readlinkat mkdir mkdirat rmdir chdir fchdir
  getcwd chmod fchmod fchmodat chown fchown lchown fchownat truncate ftruncate fsync fdatasync
  sync syncfs sync_file_range fallocate posix_fallocate posix_fadvise readahead flock lockf
  utime utimes futimes futimens utimensat mknod mknodat mkfifo
  opendir fdopendir readdir readdir_r closedir rewinddir scandir realpath
  canonicalize_file_name mkstemp mkostemp mkstemps mkostemps mkdtemp mktemp tmpfile tmpnam
  tempnam fopen fdopen freopen popen pclose isatty ttyname ttyname_r memfd_create sendfile
  copy_file_range splice tee vmsplice inotify_init inotify_init1 fanotify_init
  # memory
  mmap mremap munmap madvise posix_madvise mprotect mlock mlock2 munlock mlockall munlockall
  msync mincore brk sbrk shm_open shm_unlink
  # the process and the system
  getpid getppid gettid fork vfork _Fork clone execve execv execvp execvpe execl execlp execle
  fexecve posix_spawn posix_spawnp system wait waitpid waitid wait3 wait4 kill killpg tgkill
  raise sigaction signal sigprocmask pthread_sigmask sigaltstack sigsuspend sigwait
  sigwaitinfo sigtimedwait pthread_kill pthread_atfork pthread_create getrlimit setrlimit
  prlimit getrusage sysconf sysinfo get_nprocs get_nprocs_conf get_phys_pages
  get_avphys_pages sched_getaffinity sched_setaffinity sched_getcpu pthread_getaffinity_np
  pthread_setaffinity_np getpriority setpriority nice uname gethostname prctl syscall umask
  setsid getuid geteuid getgid getegid setuid setgid getrandom getentropy dlopen dlmopen
  # waiting on descriptors, sockets
  poll ppoll select pselect epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait
  eventfd signalfd timerfd_create socket socketpair connect bind listen accept accept4 send
  recv sendto recvfrom sendmsg recvmsg shutdown getaddrinfo
)
os_call_pattern="(__)?($(IFS='|'; echo "${os_calls[*]}"))(64)?(_chk|_2)?"
os_call_pattern+="|__(f|l)?xstat(at)?(64)?|__xmknod(at)?"
if [ -z "$build" ]; then
  echo "layering_check: no build folder given, so the OS calls of the compiled library are" \
    "not checked (usage: $0 SOURCE_ROOT BUILD_DIR)" >&2
elif ! command -v nm >/dev/null; then
  echo "layering_check: nm (binutils) is needed to check the OS calls of the compiled" \
    "library" >&2
  failed=1
else
  objects=()
  while IFS= read -r -d '' object; do
    source=${object#*.dir/}
    source=${source%.o}
    case $source in src/fs/* | src/cli/*) continue ;; esac
    # An object of a source removed since is no longer the library's.
    [ -f "$source" ] && objects+=("$object")
  done < <(find "$build/CMakeFiles" -path '*.dir/src/*' -name '*.o' -print0 2>/dev/null)
  # "SOURCE: calls NAME NAME" for each object's undefined symbols that are OS
  # calls (nm -A: "OBJECT: U NAME", NAME perhaps with a version after '@').
  found=""
  if [ "${#objects[@]}" -gt 0 ]; then
    found=$(nm -A -u "${objects[@]}" |
      sed -E 's#^[^:]*\.dir/([^:]*)\.o:[[:space:]]*U[[:space:]]+([^@[:space:]]*).*#\1 \2#' |
      grep -E " ($os_call_pattern)\$" | sort -u |
      awk '$1 != last { if (last != "") print line; last = $1; line = $1 ": calls " $2; next }
           { line = line " " $2 } END { if (last != "") print line }')
  fi
  if [ "${#objects[@]}" -eq 0 ]; then
    echo "no object file of the library under $build/CMakeFiles, so its OS calls cannot be" \
      "checked; build it first" >&2
    failed=1
  elif [ -n "$found" ]; then
    echo "an OS call in the library outside src/fs; add it to src/fs, which returns an errno" \
      "and leaves the words to its caller, and call that:" >&2
    echo "$found" >&2
    failed=1
  fi
fi
exit "$failed"
