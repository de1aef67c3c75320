#!/usr/bin/env bash
# gpu-check.sh: the GPU path of AgentEvolver for Go, in one prepared check
# (docs/gpu.md).
#
#   scripts/gpu-check.sh build            # here: build the XLA bundle into gpu-bundle/ (<= 64 MiB with the tree)
#   scripts/gpu-check.sh run [REPORT]     # on the GPU machine (no Go, no network): every stage, one JSON report
#   scripts/gpu-check.sh dry-run [REPORT] # here: the same stages on the pure-Go backend at CI size
#
# REPORT defaults to $OUT/gpu-report.json when $OUT is set, else
# gpu-bundle/gpu-report.json. Stages and their time limits (seconds;
# GPU_T_<STAGE> overrides): env 20, model-xla 60, optim-xla 60, mainjob 90,
# bench 150, anchor 70 -- at most 7.5 minutes on the GPU machine. A stage
# that fails or times out is recorded and the next one runs; the exit
# status is 0 only when the report's status is "pass".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${GPU_BUNDLE:-$root/gpu-bundle}
limit=$((64 * 1024 * 1024)) # what travels to the GPU machine: the tree plus the bundle
py=${PYTHON:-python3}

die() { echo "gpu-check: $*" >&2; exit 1; }

# tree_bytes: what the device tool sends besides carried paths: tracked
# files and untracked files that git does not ignore.
tree_bytes() {
	(cd "$root" && { git ls-files -z; git ls-files -z -o --exclude-standard; } |
		xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
}

# build_bin DIR: the CLI and the test binaries of the packages with XLA
# tests, stripped, built with the xla tag (cgo; go-xla loads the PJRT
# plugin with dlopen at run time, so no C library is linked in).
build_bin() {
	local dir=$1
	mkdir -p "$dir"
	command -v go >/dev/null || die "no Go toolchain (build and dry-run need one)"
	export CGO_ENABLED=1
	local flags=(-tags xla -trimpath -ldflags=-s\ -w)
	(cd "$root" &&
		go build "${flags[@]}" -o "$dir/agentevolver" ./cmd/agentevolver &&
		go test -c "${flags[@]}" -o "$dir/model.test" ./model &&
		go test -c "${flags[@]}" -o "$dir/optim.test" ./trainer/optim) || die "build failed"
}

cmd_build() {
	local bin
	bin=$(mktemp -d)
	trap 'rm -rf "$bin"' RETURN
	echo "gpu-check: building with -tags xla into $bin" >&2
	build_bin "$bin"
	rm -rf "$bundle"
	mkdir -p "$bundle"
	echo "gpu-check: compressing (xz) into $bundle/bin.tar.xz" >&2
	tar -C "$bin" -cf - agentevolver model.test optim.test | xz -T0 -6 >"$bundle/bin.tar.xz" || die "xz failed"
	{
		echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) by $(go version)"
		echo "commit $(cd "$root" && git rev-parse --short HEAD 2>/dev/null)$(cd "$root" && git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
		(cd "$bin" && sha256sum agentevolver model.test optim.test && ls -l agentevolver model.test optim.test)
	} >"$bundle/MANIFEST"
	local b t
	b=$(du -sb "$bundle" | cut -f1)
	t=$(tree_bytes)
	echo "gpu-check: bundle $((b / 1024 / 1024)) MiB + tree $((t / 1024 / 1024)) MiB = $(((b + t) / 1024 / 1024)) MiB (limit 64 MiB)" >&2
	[ $((b + t)) -le $limit ] || die "bundle and tree exceed 64 MiB"
	echo "gpu-check: device call: carry [\"gpu-bundle\"], command: bash scripts/gpu-check.sh run" >&2
}

# stage NAME TIMEOUT LOG CMD...: run one stage under a time limit and
# append its line to stages.jsonl.
stage() {
	local name=$1 t=$2 log=$3
	shift 3
	local var="GPU_T_${name//-/_}"
	t=${!var:-$t}
	echo "gpu-check: stage $name (limit ${t}s)" >&2
	local start end rc
	start=$(date +%s.%N)
	timeout -k 10 "$t" "$@" >"$stages/$log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	printf '{"name":"%s","rc":%d,"seconds":%.2f,"timeout_s":%d,"log":"%s"}\n' \
		"$name" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "$t" "$log" >>"$stages/stages.jsonl"
	echo "gpu-check: stage $name rc=$rc" >&2
}

skip_stage() {
	printf '{"name":"%s","rc":0,"seconds":0,"timeout_s":0,"log":"","skip":"%s"}\n' "$1" "$2" >>"$stages/stages.jsonl"
}

# run_stages MODE BIN REPORT
run_stages() {
	local mode=$1 bin=$2 report=$3 backend test_backend shape_flags mainjob
	stages=$(mktemp -d /tmp/gpu-check.XXXXXX)
	export stages
	local began
	began=$(date +%s)
	if [ "$mode" = run ]; then
		stage env 20 env.log env GPU_ENV_JSON="$stages/env.json" "$root/scripts/gpu-launch.sh" true
		# The launcher's variables for every later stage.
		eval "$("$py" "$root/scripts/gpu_env.py" --workdir "${GPU_PJRT_DIR:-/tmp/agentevolver-pjrt}")"
		backend=${GPU_BACKEND:-xla:cuda} test_backend=${GPU_BACKEND:-xla:cuda}
		# Qwen2.5-0.5B shape, LoRA r=16, bf16; the anchor runs the same.
		shape_flags=(--shape qwen2.5-0.5b --lora-r 16 --batch 8 --seq-len 512 --prompt-len 256 --steps 3
			--gen-batch 1,64 --gen-prompt 64 --gen-tokens 64 --gen-steps 1)
		mainjob=(--set trainer.rl_steps=3)
	else
		stage env 20 env.log "$py" "$root/scripts/gpu_env.py" --backend "${GPU_BACKEND:-go:ops_sequential}" --workdir "$stages/pjrt" --env-json "$stages/env.json"
		# Dry-run: the same tests compare the upstream pure-Go backend (go:ops_sequential; its parallel executor deadlocks) with the
		# default gofast one; CI-sized shapes.
		# The main job and the bench run on the default pure-Go backend.
		test_backend=${GPU_BACKEND:-go:ops_sequential} backend=${GPU_BACKEND:-gofast:ops_sequential}
		shape_flags=(--shape ci --lora-r 16 --batch 2 --seq-len 32 --prompt-len 16 --steps 2
			--gen-batch 1,4 --gen-prompt 8 --gen-tokens 8 --gen-steps 1)
		mainjob=(--set trainer.rl_steps=1)
	fi
	export AGENTEVOLVER_XLA_BACKEND=$test_backend AGENTEVOLVER_PARITY_OUT=$stages/parity.jsonl
	stage model-xla 60 model.log bash -c "cd '$root/model' && '$bin/model.test' -test.run 'XLA' -test.v -test.count=1"
	stage optim-xla 60 optim.log bash -c "cd '$root/trainer/optim' && '$bin/optim.test' -test.run 'XLA' -test.v -test.count=1"
	stage mainjob 90 mainjob.log env GOMLX_BACKEND="$backend" "$bin/agentevolver" train "${mainjob[@]}" \
		--set trainer.val_before_train=false --set trainer.test_freq=0 --set data.val_tasks=2 \
		--set trainer.progress=false --set trainer.output_dir="$stages/mainjob-runs" --overwrite
	mkdir -p "$stages/mainjob"
	local metrics
	metrics=$(find "$stages/mainjob-runs" -name metrics.jsonl 2>/dev/null | head -1)
	[ -n "$metrics" ] && cp "$metrics" "$stages/mainjob/metrics.jsonl"
	local reserve=2GB
	[ "$mode" = run ] || reserve=0
	stage bench 150 bench.log "$bin/agentevolver" bench-gpu --backend "$backend" --dtype bf16 --reserve "$reserve" \
		"${shape_flags[@]}" --out "$stages/bench.json"
	if "$py" -c 'import torch, peft, transformers' 2>/dev/null; then
		stage anchor 70 anchor.log env PYTHONUNBUFFERED=1 "$py" "$root/scripts/gpu_anchor.py" "${shape_flags[@]}" --out "$stages/anchor.json"
	else
		skip_stage anchor "PyTorch + PEFT + transformers not importable by $py"
	fi
	"$bin/agentevolver" gpu-report --dir "$stages" --mode "$mode" --out "$report" || die "gpu-report failed (stages in $stages)"
	local logs
	logs="$(dirname "$report")/gpu-check-logs.tar.gz"
	tar -C "$stages" -czf "$logs" --exclude=mainjob-runs --exclude=pjrt . 2>/dev/null
	echo "gpu-check: report $report, logs $logs, $(($(date +%s) - began)) s" >&2
	"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); print("gpu-check: status", r["status"]); sys.exit(r["status"] != "pass")' "$report"
}

default_report() {
	if [ -n "${OUT:-}" ]; then echo "$OUT/gpu-report.json"; else mkdir -p "$bundle" && echo "$bundle/gpu-report.json"; fi
}

cmd_run() {
	local report=${1:-$(default_report)} bin=${GPU_BIN:-/tmp/agentevolver-gpu-bin}
	[ -f "$bundle/bin.tar.xz" ] || die "no $bundle/bin.tar.xz: run 'scripts/gpu-check.sh build' here and carry gpu-bundle"
	mkdir -p "$bin"
	# Python's lzma: the machine may lack the xz tool.
	"$py" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$bundle/bin.tar.xz" "$bin" || die "unpacking failed"
	run_stages run "$bin" "$report"
}

cmd_dry_run() {
	local report=${1:-$(default_report)} bin
	bin=$(mktemp -d)
	trap 'rm -rf "$bin"' RETURN
	echo "gpu-check: dry-run: building with -tags xla (no compression)" >&2
	build_bin "$bin"
	run_stages dry-run "$bin" "$report"
}

case "${1:-}" in
build) cmd_build ;;
run) cmd_run "${2:-}" ;;
dry-run) cmd_dry_run "${2:-}" ;;
*)
	sed -n '2,16p' "$0" >&2
	exit 2
	;;
esac
