// Command agentevolver trains, evaluates and serves self-evolving LLM
// agents.
//
// Usage:
//
//	agentevolver <command> [flags]
//
// The commands:
//
//	train      train a policy: with no flags, the built-in toolworld job on the
//	           pure-Go backend; --config FILE (repeatable), --set key=value
//	           (repeatable), --resume, --overwrite, --print-config
//	eval       validate a saved policy: --checkpoint DIR --split S --k K [--trajectories FILE]
//	serve-env  serve Go environments over the env-service protocol:
//	           --env toolworld --addr 127.0.0.1:8080
//	gen-tasks  write synthetic tasks by self-questioning: --env toolworld --out DIR
//	           [--seeds N] [--n N] [--llm-url URL --llm-model NAME] (resumable)
//	cues       synthesise tasks with CuES (explore, abstract, re-execute, export):
//	           --out DIR --env NAME (--llm-url URL --llm-model NAME | --policy DIR) (resumable)
//	tokenize   print the token ids of stdin: --tokenizer DIR|byte [--chat]
//	experiment run every arm x seed of an experiment file and compare them:
//	           --config FILE [--quick] [--out DIR]
//	bench      throughput of train, logprob or generate (--model tiny|small), or of
//	           rollouts: bench rollout [--baseline]
//	export     write a policy as a Hugging Face Qwen2 directory that vLLM serves:
//	           --checkpoint DIR --out DIR [--dtype bf16|f32] [--tokenizer DIR]
//	score      print {"logprobs": [...]} for a JSON list of token ids on stdin:
//	           --checkpoint DIR
//	plan       estimate the device memory of a configuration and whether it fits:
//	           --config FILE --devices N --device-memory SIZE [--dtype bf16] [--lora-r R]
//	arena      Avalon tournaments and the web page: arena run|show|serve
//	diplomacy  Diplomacy games and tournaments between models and bots:
//	           diplomacy play|arena (resumable)
//
// Run "agentevolver help <command>" (or "agentevolver <command> -h") for the
// flags of a command and "agentevolver --version" for the version.
package main
