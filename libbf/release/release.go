// Package release holds the version every bf binary reports: bf --version, bf-NAME
// --version and the MCP server's serverInfo.
//
// `make dist` stamps it once for all binaries with
// -ldflags "-X github.com/bfgo/bf/libbf/release.stamp=VERSION"; a binary installed with
// `go install github.com/bfgo/bf/bf-NAME@vX.Y.Z` reports its module version instead, and
// a development build reports "dev".
package release

import "runtime/debug"

// stamp is set at link time by make dist.
var stamp string

// Version is the release this binary belongs to.
func Version() string {
	if stamp != "" {
		return stamp
	}
	return fromBuild(debug.ReadBuildInfo())
}

// fromBuild is the main module's version when the go command recorded one.
func fromBuild(bi *debug.BuildInfo, ok bool) string {
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
