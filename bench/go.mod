module github.com/bfgo/bf/bench

go 1.26
