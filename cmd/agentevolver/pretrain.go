package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/goccy/go-yaml"

	"github.com/org/agentevolver/pretrain"
)

func init() {
	register(command{name: "pretrain", summary: "pretrain the base policy on the generated toolworld corpus", run: runPretrain})
}

func runPretrain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pretrain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var configs, sets stringList
	fs.Var(&configs, "config", "YAML configuration file, layered over the defaults (repeatable); a policy's pretrain.yaml repeats its run")
	fs.Var(&sets, "set", "override one key, for example --set train.steps=100 (repeatable)")
	resume := fs.Bool("resume", false, "continue from the checkpoint in the output directory")
	overwrite := fs.Bool("overwrite", false, "start afresh in an output directory that holds a run, removing it")
	check := fs.String("check", "", "instead of training, replay the card check of this policy directory and compare it with the recorded outcomes")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	printConfig := fs.Bool("print-config", false, "print the resolved configuration as YAML and exit")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	if *check != "" {
		rec, err := pretrain.Check(ctx, *check, pretrain.CheckOptions{Logger: log})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: the check reproduces (%d tasks, %.1f%% solved)\n", *check, len(rec.Tasks), 100*rec.Success())
		return nil
	}
	cfg, err := pretrain.LoadConfig(configs, sets)
	if err != nil {
		return err
	}
	if *printConfig {
		data, err := yaml.Marshal(cfg)
		if err != nil {
			return err
		}
		_, err = stdout.Write(data)
		return err
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	res, err := pretrain.Run(ctx, cfg, pretrain.Options{Logger: log, Output: stdout, Resume: *resume, Overwrite: *overwrite})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "policy in %s\n", res.PolicyDir)
	fmt.Fprintf(stdout, "level  none    relevant  unrelated\n")
	for _, l := range res.Card.Success {
		fmt.Fprintf(stdout, "%d      %5.1f%%  %5.1f%%    %5.1f%%\n", l.Level, 100*l.None, 100*l.Relevant, 100*l.Unrelated)
	}
	return nil
}
