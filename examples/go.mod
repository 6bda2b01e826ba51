module github.com/bfgo/bf/examples

go 1.26
