// Package envkit holds the pieces the built-in environments
// (envs/toolworld, envs/sqlworld, envs/textgame, envs/mcp, arena/avalon)
// wrote alike: sentinel errors that also match a more general envclient
// sentinel, and the check that opens every Instance method.
package envkit
