// Package envservice serves Go environments: a Manager runs their instances
// in process, and a Server exposes a Manager over HTTP with the env-service
// protocol of the Python AgentEvolver, so the Python trainer, the Go
// envclient.Client and curl can all drive the same environments.
//
// An environment is a Go type implementing Environment (list tasks, create
// instances); its instances implement Instance (initial state, step,
// evaluate, info, close). Environments are registered by name on a Manager,
// which is an allow-list: nothing is ever loaded by name.
//
// An environment may also offer optional capabilities, found by type
// assertion and all documented in capabilities.go: ProfileProvider (an
// environment profile), Expert (demonstrations), CorpusProvider (text to
// learn a tokenizer from), TaskMetadataProvider (task difficulty),
// StepOracle (which steps progressed a task), TaskSynthesizer (hindsight
// tasks from what an episode achieved) and RandomExplorer (random valid
// actions to explore with).
// Manager.Environment returns a registered environment so that code holding
// the Manager can look for them.
//
//	m := envservice.NewManager(envservice.ManagerConfig{Logger: logger})
//	if err := m.Register("toolworld", env); err != nil { ... }
//	srv := envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: "toolworld"})
//	err := srv.ListenAndServe(ctx, "127.0.0.1:8080") // until ctx ends
//
// # Exposure
//
// Serve bounds what a client can hold: ReadHeaderTimeout (10 s) and
// ReadTimeout (30 s) for a request, WriteTimeout (30 s) for an answer,
// counted only once the environment has answered so that slow steps are
// never cut, ConnIdleTimeout (120 s) for an idle keep-alive connection and
// MaxConnections (1024) open connections; ServerConfig documents why. By
// default any process that can reach the server may call it, but creates
// get unguessable server-minted ids, so nobody can step or release an
// instance whose id they were not given. ServerConfig.Token requires a bearer
// token on every route but /healthz (and lets its holders name their own
// ids); TLSCertFile and TLSKeyFile, or TLSConfig, serve HTTPS.
// ServerConfig{TrustClientIDs: true} is the reference's behaviour, which the
// Python trainer client needs: it chooses its instance ids and sends no
// token.
//
// The Manager itself implements envclient.Env, so a trainer in the same
// process can skip HTTP entirely. It serialises calls per instance, runs
// different instances in parallel, reaps instances idle for an hour (sweeping
// every five minutes, as the reference does), caps the number of live
// instances and turns environment panics into errors.
package envservice
