module github.com/bfgo/bf/bf

go 1.26.0

require github.com/bfgo/bf/libbf v0.1.0
