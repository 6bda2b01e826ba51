module github.com/bfgo/bf/bf

go 1.26
