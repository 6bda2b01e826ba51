module github.com/bfgo/bf/e2e

go 1.26

require github.com/bfgo/bf/libbf v0.1.0

require github.com/rogpeppe/go-internal v1.16.0 // indirect
