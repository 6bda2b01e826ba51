module github.com/bfgo/bf/libbf

go 1.26

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/peterbourgon/ff/v3 v3.4.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	golang.org/x/text v0.44.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
