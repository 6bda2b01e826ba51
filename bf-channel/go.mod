module github.com/bfgo/bf/bf-channel

go 1.26
