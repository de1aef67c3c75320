#!/usr/bin/env bash
# gpu-launch.sh: run a program built with -tags xla on the CUDA PJRT plugin
# and NVIDIA libraries that the machine's JAX installation ships (pip
# packages jax-cuda13-plugin / jax-cuda13-pjrt and nvidia-*), with no
# download. docs/gpu.md explains each variable; scripts/gpu_env.py finds
# the files.
#
#   scripts/gpu-launch.sh gpu-bundle/bin/agentevolver train --set trainer.backend=xla:cuda
#
# It sets PJRT_PLUGIN_LIBRARY_PATH (a link named pjrt_c_api_cuda_plugin.so
# to JAX's xla_cuda_plugin.so, so GOMLX_BACKEND=xla:cuda finds it),
# LD_LIBRARY_PATH (the nvidia-* packages' lib/ directories), XLA_FLAGS
# (--xla_gpu_cuda_data_dir: libdevice and ptxas), GOMLX_NO_AUTO_INSTALL=1,
# GOPJRT_CUDA_CHECKS=0 and, unless set, GOMLX_BACKEND=xla:cuda; then execs
# the program. GPU_ENV_JSON=FILE also writes what it found as JSON.
set -euo pipefail
if [ $# -eq 0 ]; then
	sed -n '2,17p' "$0" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
exports=$("$py" "$here/gpu_env.py" --workdir "${GPU_PJRT_DIR:-/tmp/agentevolver-pjrt}" ${GPU_ENV_JSON:+--env-json "$GPU_ENV_JSON"})
eval "$exports"
export GOMLX_BACKEND=${GOMLX_BACKEND:-xla:cuda}
exec "$@"
