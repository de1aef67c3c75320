// Package fsutil holds the two file operations every package of the SDK
// needs to do safely: reading a file of bounded size and replacing a file
// atomically.
package fsutil
