# shellcheck shell=bash
# What building localm needs besides a Rust toolchain, and installing it on Debian. llama.cpp is
# compiled from source by llama-cpp-sys-2's build script: cmake drives the C++ build, and bindgen
# needs clang and libclang. Sourced by scripts/daemon and scripts/test; defines functions only.

# Print, one a line, the Debian packages the build needs that are missing. libclang is looked
# for only where dpkg can tell (elsewhere the build itself says when it is missing).
build_deps_missing() {
  command -v cmake >/dev/null 2>&1 || echo cmake
  command -v clang >/dev/null 2>&1 || echo clang
  if command -v dpkg >/dev/null 2>&1; then
    dpkg -s libclang-dev >/dev/null 2>&1 || echo libclang-dev
  fi
}

# install_debs WHO PACKAGE...: install the packages from Debian's archive (apt-get update once,
# then one install), through sudo unless already root. WHO names the calling script in the
# message. Does nothing when no package is given.
install_debs() {
  local who=$1
  shift
  [ $# -gt 0 ] || return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$who: missing $*, and apt-get is not here to install them: install them another way" >&2
    return 1
  fi
  echo "$who: installing $* from Debian's packages" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # Through env, not as a prefix: sudo resets the environment, so a prefix would not reach apt.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
