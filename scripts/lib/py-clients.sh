# shellcheck shell=bash
# The Python venv holding the official client packages the end-to-end tests drive localm with
# (the MCP SDK `mcp`; the tests' clients are in tests/clients/). Sourced by scripts/test;
# defines functions only. Needs install_debs from build-deps.sh when python3-venv is missing.

# py_clients VENV PACKAGE...: create VENV with `python3 -m venv` unless it is there, install the
# packages into it (pinned, e.g. mcp==2.3.0: pip does nothing for one already installed at that
# version), and export LOCALM_TEST_PYTHON (VENV/bin/python, an absolute path) for the tests.
py_clients() {
  local venv=$1
  shift
  # Absolute, so the tests find it from any working directory.
  case $venv in /*) ;; *) venv="$PWD/$venv" ;; esac
  if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
      install_debs py_clients python3-venv
    fi
    python3 -m venv "$venv"
  fi
  if [ $# -gt 0 ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >&2
  fi
  export LOCALM_TEST_PYTHON="$venv/bin/python"
}
