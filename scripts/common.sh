# Sourced by the scripts.

# ensure_packages NAME...: installs the Debian packages that are missing (with
# sudo unless root).
ensure_packages() {
  local missing=() p sudo_cmd=""
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "$(basename "$0"): installing system packages: ${missing[*]}"
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
}

# check_exports NM LIB SYMBOL...: fails unless LIB defines exactly these dynamic
# symbols (read with the nm tool NM, symbol versions stripped).
check_exports() {
  local nm=$1 lib=$2 expected actual
  shift 2
  expected=$(printf '%s\n' "$@" | sort)
  actual=$("$nm" -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort)
  if [ "$actual" != "$expected" ]; then
    printf '%s: %s exports\n%s\nexpected\n%s\n' "$(basename "$0")" "$lib" "$actual" "$expected" >&2
    return 1
  fi
}
