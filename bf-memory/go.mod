module github.com/bfgo/bf/bf-memory

go 1.26
