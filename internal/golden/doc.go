// Package golden loads the JSON fixtures produced by running the original
// Python AgentEvolver math on seeded inputs (kept in testdata/golden at the module root; AGENTEVOLVER_GOLDEN_DIR overrides) and compares
// numbers the way their README prescribes.
package golden
