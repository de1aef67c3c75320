// Package hostcheck refuses HTTP requests whose Host header does not name
// the server: the guard against DNS rebinding of a local web page (a site
// whose name resolves to 127.0.0.1 would otherwise read the page's data
// from the visitor's browser). It is the check of arena/web's server
// (Config.AllowedHosts), in a package the run viewer shares.
package hostcheck
