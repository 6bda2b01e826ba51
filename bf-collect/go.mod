module github.com/bfgo/bf/bf-collect

go 1.26
