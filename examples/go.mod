module github.com/bfgo/bf/examples

go 1.26.0

require github.com/bfgo/bf/libbf v0.1.0
