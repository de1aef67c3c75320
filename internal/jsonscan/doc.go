// Package jsonscan finds JSON objects written inside free text, as a model
// writes a tool call among prose: the scan the environments that read
// JSON tool calls share (envs/toolworld, envs/mcp).
package jsonscan
