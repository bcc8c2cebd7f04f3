// Package web is mbatchd's dashboard: server-rendered pages (html/template,
// embedded with go:embed) of the cluster, its jobs, hosts and queues, a
// server-sent event stream that tells open pages to refresh, and job
// control (kill, stop, resume, requeue) for holders of a web token.
//
// The data comes from mbatchd's own read paths through Source, a small
// interface internal/mbd implements in-process; nothing forks a command.
// A viewer without a token is anonymous and sees what LSF shows anyone:
// every job's summary, the details (command, files, ...) hidden as bjobs
// -l hides another user's. A token (Tokens: an HMAC-signed user name, uid
// and expiry under a key only mbatchd holds) is obtained with `basalt
// web-token`, which authenticates to the dashboard's /token endpoint with
// the same connection hello and Authenticator as every command; with it,
// the viewer is that user for visibility and control, and control is
// authorized as the commands are (Source.Control runs mbatchd's own).
package web
