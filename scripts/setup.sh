#!/usr/bin/env bash
# Create .venv and install theorem-rag with the extras named in $1 (default: dev, every extra). torch is pinned first
# so that pip takes the CPU wheel from local disk instead of a multi-GB CUDA build; llama-cpp-python (in the app
# extra) compiles for a portable CPU baseline (the default native build crashes on some CPUs).
#
#   bash scripts/setup.sh                # everything: what CI and the README's commands use
#   bash scripts/setup.sh corpus,index   # parse, index and search only (the quickstart, before its first search)
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-dev}"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[$EXTRAS]"
# math-minilm-v4, the embedder of queries in words, ships in the repository as its own package (fp16 weights, 45 MB)
.venv/bin/python -m pip install -q ./packages/theorem-rag-math-minilm
