module github.com/bfgo/bf/bf-index

go 1.26
