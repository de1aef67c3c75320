// Package gobackend is a fork of GoMLX's pure-Go backend (backends/simplego,
// v0.26.0) registered under the name "gofast", with a SIMD float32 matrix
// multiplication in place of simplego's scalar DotGeneral kernels.
//
// Import it for its side effect and select it like any GoMLX backend, with the
// same options simplego accepts:
//
//	import _ "github.com/org/agentevolver/internal/gobackend"
//
//	backend, err := backends.NewWithConfig("gofast:ops_sequential")
//
// Upstream simplego stays linked in and registered as "go", so the two can be
// compared in one binary. Float32 DotGeneral runs on package
// github.com/org/agentevolver/internal/gemm (AVX-512, AVX2+FMA or pure-Go
// micro-kernels); float64 and bfloat16 keep upstream's code. See README.md for
// what else differs from upstream.
package gobackend
