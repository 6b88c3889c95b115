#!/usr/bin/env bash
# Create .venv and install theorem-rag with the extras named in $1 (default: dev, every extra). torch is pinned first
# so that pip takes the CPU wheel from local disk instead of a multi-GB CUDA build; llama-cpp-python (in the app
# extra) compiles for a portable CPU baseline (the default native build crashes on some CPUs).
#
#   bash scripts/setup.sh                # everything: what CI and the README's commands use
#   bash scripts/setup.sh corpus,index   # parse, index and search only (the quickstart, before its first search)
#   bash scripts/setup.sh --wheels DIR   # llama-cpp-python built as a wheel into DIR, nothing installed; a later
#                                        # PIP_FIND_LINKS=DIR bash scripts/setup.sh installs it from there
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-dev}"
# llama-cpp-python without its multimodal library (mtmd, for images; nothing here reads one): 18% less to compile.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF}"
[ -x .venv/bin/python ] || python3 -m venv .venv
if [ "$EXTRAS" = --wheels ]; then
  spec=$(.venv/bin/python -c 'import tomllib; app = tomllib.load(open("pyproject.toml", "rb"))["project"]
print(next(r for r in app["optional-dependencies"]["app"] if r.startswith("llama-cpp-python")))')
  exec .venv/bin/python -m pip wheel -q --no-deps -w "${2:?the folder to build the wheel into}" "$spec"
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[$EXTRAS]"
# math-minilm-v4, the embedder of queries in words, ships in the repository as its own package (fp16 weights, 45 MB)
.venv/bin/python -m pip install -q ./packages/theorem-rag-math-minilm
