module github.com/bfgo/bf/bf-import

go 1.26
