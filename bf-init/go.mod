module github.com/bfgo/bf/bf-init

go 1.26.0

require github.com/bfgo/bf/libbf v0.1.0

require (
	github.com/peterbourgon/ff/v3 v3.4.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
