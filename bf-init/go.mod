module github.com/bfgo/bf/bf-init

go 1.26
