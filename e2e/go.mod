module github.com/bfgo/bf/e2e

go 1.26.0

require github.com/bfgo/bf/libbf v0.1.0

require (
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
