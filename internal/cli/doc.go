// Package cli is what the recrawl subcommands share on their command
// lines: hidden aliases of old flag names and help texts (cliflags.go),
// checks of flag values before a pipeline is built (flagcheck.go), the
// log level that --verbose sets (loglevel.go), parsing that tells a request
// for help from a wrong command line (parse.go), and the profiles the
// environment asks for (profiling.go).
package cli
