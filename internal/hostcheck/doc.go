// Package hostcheck refuses HTTP requests whose Host header does not name
// the server: the guard against DNS rebinding of a local web page (a site
// whose name resolves to 127.0.0.1 would otherwise read the page's data
// from the visitor's browser). The arena's web page (arena/web,
// Config.AllowedHosts) and the run viewer (runview) both use it.
package hostcheck
