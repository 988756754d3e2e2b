# What the *_planted.sh scripts share, sourced by each after it sets
# `planted` (its ctest name, for its messages) and `check` (the script it
# plants cases for): a scratch folder, files put in a tree there, the check
# run and what it said.

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

fail() {
  echo "$planted: $*" >&2
  exit 1
}

# put FILE: writes standard input to FILE under the tree ($tree).
put() {
  mkdir -p "$(dirname "$tree/$1")"
  cat >"$tree/$1"
}

# run_check ARGS...: the check; sets STATUS and ERR (its stderr).
run_check() {
  ERR=$(bash "$check" "$@" 2>&1 >/dev/null)
  STATUS=$?
}

# expect_in_err TEXT CASE: the check's stderr holds TEXT.
expect_in_err() {
  grep -qF -- "$1" <<<"$ERR" || fail "$2: the check did not say \"$1\": $ERR"
}
