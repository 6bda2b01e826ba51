module github.com/bfgo/bf/bf-watch

go 1.26
