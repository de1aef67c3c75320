// Package golden loads the JSON fixtures produced by running the original
// Python AgentEvolver math on seeded inputs (../shared/golden) and compares
// numbers the way their README prescribes.
package golden
