module github.com/bfgo/bf/bench

go 1.26

require github.com/google/go-cmp v0.7.0
