module github.com/bfgo/bf/bf-search

go 1.26
