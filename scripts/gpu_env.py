#!/usr/bin/env python3
"""Find what go-xla needs to run on CUDA inside a JAX installation.

Used by scripts/gpu-launch.sh (docs/gpu.md). No download, no import of jax
or torch (only their package metadata and file locations):

* the CUDA PJRT plugin JAX ships, jax_plugins/xla_cuda*/xla_cuda_plugin.so
  (pip package jax-cudaNN-plugin / -pjrt). go-xla only loads files named
  pjrt_c_api_<name>_plugin.so from PJRT_PLUGIN_LIBRARY_PATH, so a link
  <dir>/lib/pjrt_c_api_cuda_plugin.so points at it (backend "xla:cuda"),
  and <dir>/nvidia links to the pip nvidia/ package directory, where
  go-xla's CUDA check and the plugin's $ORIGIN/../nvidia RPATH look;
* the lib/ directories of the pip nvidia-* packages (cuBLAS, cuDNN, cuFFT,
  cuSPARSE, cuSOLVER, NCCL, nvJitLink, the CUDA runtime; nvidia/cu13/lib
  for CUDA 13 wheels) for LD_LIBRARY_PATH;
* a CUDA data directory with nvvm/libdevice and bin/ptxas for
  XLA_FLAGS=--xla_gpu_cuda_data_dir. Setting it ourselves also stops
  go-xla v0.1.4 from appending a data directory of its author's machine
  (/home/janpf/...) to XLA_FLAGS.

Prints `export NAME=value` lines for the shell and, with --env-json, writes
the description the report's "host" field holds.
"""

import argparse
import glob
import importlib.metadata
import importlib.util
import json
import os
import shlex
import socket
import subprocess
import sys


def package_dirs(name):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None or spec.submodule_search_locations is None:
        return []
    return [d for d in spec.submodule_search_locations if os.path.isdir(d)]


def version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return ""


def smi(query):
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def find(workdir):
    info = dict(hostname=socket.gethostname(), gpu=smi("name"), driver=smi("driver_version"), backend="",
                plugin_path="", plugin_target="", nvidia_lib_dirs=[], cuda_data_dir="", xla_flags="",
                jax_version=version("jax"), torch_version=version("torch"), peft_version=version("peft"))
    env = {}
    plugins = []
    for d in package_dirs("jax_plugins"):
        plugins += sorted(glob.glob(os.path.join(d, "xla_cuda*", "xla_cuda_plugin.so")))
    nvidia = package_dirs("nvidia")
    libs = []
    for d in nvidia:
        libs += sorted(p for p in glob.glob(os.path.join(d, "*", "lib")) if os.path.isdir(p))
    for extra in ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"):
        if os.path.isdir(extra):
            libs.append(extra)
    info["nvidia_lib_dirs"] = libs
    candidates = [os.path.join(d, sub) for d in nvidia for sub in ("cu13", "cuda_nvcc", "cu12")]
    candidates += ["/usr/local/cuda"]
    data_dir = next((c for c in candidates if os.path.isdir(os.path.join(c, "nvvm", "libdevice"))), "")
    if not data_dir:
        data_dir = next((c for c in candidates if os.path.exists(os.path.join(c, "bin", "ptxas"))), "")
    info["cuda_data_dir"] = data_dir
    errors = []
    if not plugins:
        errors.append("no jax_plugins/xla_cuda*/xla_cuda_plugin.so (is jax-cuda13-plugin installed?)")
    else:
        target = plugins[-1]
        lib = os.path.join(workdir, "lib")
        os.makedirs(lib, exist_ok=True)
        link = os.path.join(lib, "pjrt_c_api_cuda_plugin.so")
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
        if nvidia:
            nv = os.path.join(workdir, "nvidia")
            if os.path.lexists(nv):
                os.remove(nv)
            os.symlink(nvidia[0], nv)
        info.update(backend="xla:cuda", plugin_path=link, plugin_target=target)
        env["PJRT_PLUGIN_LIBRARY_PATH"] = lib
    if not data_dir:
        errors.append("no CUDA data directory with nvvm/libdevice or bin/ptxas")
    flags = os.environ.get("XLA_FLAGS", "")
    if data_dir and "--xla_gpu_cuda_data_dir" not in flags:
        flags = (flags + " --xla_gpu_cuda_data_dir=" + data_dir).strip()
    info["xla_flags"] = flags
    if flags:
        env["XLA_FLAGS"] = flags
    ld = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    env["LD_LIBRARY_PATH"] = ":".join(libs + [p for p in ld if p not in libs])
    path = os.environ.get("PATH", "")
    if data_dir and os.path.isdir(os.path.join(data_dir, "bin")):
        env["PATH"] = os.path.join(data_dir, "bin") + ":" + path
    env["GOMLX_NO_AUTO_INSTALL"] = "1"  # never download a plugin
    env["GOPJRT_CUDA_CHECKS"] = "0"  # go-xla's check would rewrite XLA_FLAGS (see above)
    env["TF_CPP_MIN_LOG_LEVEL"] = os.environ.get("TF_CPP_MIN_LOG_LEVEL", "1")
    if errors:
        info["error"] = "; ".join(errors)
    return info, env


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workdir", default="/tmp/agentevolver-pjrt", help="where the plugin links are made")
    p.add_argument("--env-json", help="write the host description here")
    p.add_argument("--backend", help="record this backend instead of the one found (dry-run: go)")
    a = p.parse_args(argv)
    info, env = find(a.workdir)
    if a.backend:
        info["backend"] = a.backend
    if a.env_json:
        with open(a.env_json, "w") as f:
            json.dump(info, f, indent=2)
            f.write("\n")
    for k, v in env.items():
        print(f"export {k}={shlex.quote(v)}")
    if "error" in info and not a.backend:
        print(f"gpu_env.py: {info['error']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
