# Sourced by scripts/test.sh and scripts/sanitize.sh before ctest: the
# tests' temporary files (every test makes its folders under TMPDIR) go to
# a folder of their own on /dev/shm, where that is a tmpfs with at least
# 4 GiB free, removed at the end; GDEDUP_TEST_TMPDIR=DIR names a folder
# instead. The checkpoint and end-to-end tests make their files durable
# (fsync) thousands of times in all; on a disk each call waits for what the
# other tests and other programs wrote meanwhile: mpi.checkpoint took up to
# twice as long there as on a tmpfs while the disk was busy, as it is in CI
# (bench/RESULTS.md, CI's time); on a tmpfs the call returns at once. The calls are still made and their order is tested
# apart from any disk (durability_order_test.cpp).
if [ -n "${GDEDUP_TEST_TMPDIR:-}" ]; then
  export TMPDIR=$GDEDUP_TEST_TMPDIR
elif [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
     [ "$(df -k --output=avail /dev/shm 2>/dev/null | tail -n 1)" -ge $((4 << 20)) ] &&
     gdedup_test_tmpdir=$(mktemp -d /dev/shm/gdedup-tests.XXXXXX 2>/dev/null); then
  export TMPDIR=$gdedup_test_tmpdir
  trap 'rm -rf "$gdedup_test_tmpdir"' EXIT
fi
