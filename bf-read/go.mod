module github.com/bfgo/bf/bf-read

go 1.26
