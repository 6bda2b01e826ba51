module github.com/bfgo/bf/bf-ask

go 1.26
